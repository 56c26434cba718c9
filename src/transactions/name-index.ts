/**
 * The customer-name blind index (SPEC §17): names are searchable without being stored in clear.
 *
 * Invariants:
 * - A name is cut into tokens the same way at indexing and at search: Unicode NFKD, combining marks
 *   (diacritics) dropped, lower case, split on anything that is not a letter. "Müller-Lüdenscheidt"
 *   and "MULLER ludenscheidt" give the same tokens.
 * - A token is stored only as the first 16 bytes of HMAC-SHA256 under the hub's name-index key
 *   (hex here, bytea in the database). The key is the hub's own (`hub_keys`, sealed under the
 *   master key): rotating the master key re-seals it and leaves every stored token valid.
 * - A query matches a transaction when every one of its tokens is among the transaction's.
 * - Pure but for the key: no I/O, nothing logged.
 */
import { createHmac } from 'node:crypto';

/** Bytes of a stored token: 128 bits keep collisions out of reach for any realistic volume. */
const TOKEN_BYTES = 16;
/** The most tokens a query may have (a name, not a text). */
export const MAX_QUERY_TOKENS = 8;

/** The IVMS101 fields that hold a person's name, in any version (2020 and 2023 agree on these). */
const NAME_FIELDS = new Set(['primaryIdentifier', 'secondaryIdentifier', 'legalPersonName']);
/** The parts of a message whose names are indexed: the customers, not the VASPs. */
const PARTIES = ['originator', 'beneficiary'];

/** The normalised tokens of a text: NFKD, no diacritics, lower case, letters only. */
export function nameTokens(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((t) => t.length > 0);
}

/**
 * The elements on the way from a party to its names (canonical spelling, SPEC §18): only these are
 * walked, so addresses, identifiers and account numbers are never visited.
 */
const NAME_PATH = new Set([
  'originatorPersons',
  'beneficiaryPersons',
  'naturalPerson',
  'legalPerson',
  'name',
  'nameIdentifier',
  'localNameIdentifier',
  'phoneticNameIdentifier',
]);

/** Every name string of the originator's and beneficiary's persons in a canonical IVMS101 message. */
export function customerNames(message: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown, depth: number) => {
    if (depth > 8 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value) walk(v, depth + 1);
      return;
    }
    for (const key in value) {
      const v = (value as Record<string, unknown>)[key];
      if (NAME_FIELDS.has(key)) {
        if (typeof v === 'string') out.push(v);
      } else if (NAME_PATH.has(key)) walk(v, depth + 1);
    }
  };
  if (message !== null && typeof message === 'object') {
    for (const party of PARTIES) walk((message as Record<string, unknown>)[party], 0);
  }
  return out;
}

export class NameIndex {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  /** The blind index entry of one normalised token, as hex. */
  digest(token: string): string {
    // Hex straight from the digest and cut: a third cheaper than slicing a Buffer and encoding it.
    return createHmac('sha256', this.#key)
      .update(token, 'utf8')
      .digest('hex')
      .slice(0, TOKEN_BYTES * 2);
  }

  /** The distinct entries for a message's customer names (what is written with the transaction). */
  entriesOf(message: unknown): string[] {
    const tokens = new Set<string>();
    for (const name of customerNames(message)) for (const t of nameTokens(name)) tokens.add(t);
    return [...tokens].map((t) => this.digest(t));
  }

  /** The distinct entries a query must all match; empty when it has no letters. */
  queryEntries(query: string): string[] {
    return [...new Set(nameTokens(query))].map((t) => this.digest(t));
  }

  toJSON() {
    return '[NameIndex]';
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return '[NameIndex]';
  }
}
