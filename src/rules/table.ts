/**
 * The rules table (SPEC §15): per jurisdiction, its legal source and date, the threshold from which
 * the full travel rule applies (or none), the originator and beneficiary data required above and
 * below it, and the self-hosted-wallet threshold. Read once, at start, and checked there (a broken
 * table fails the start naming the entry). `rules.json` at the package root ships the table;
 * HUB_RULES_FILE replaces it. Entry keys are ISO 3166-1 alpha-2 codes, plus `FATF` (the baseline,
 * required: it answers for every country the table does not list) and group entries such as `EU`
 * that name their member `countries`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDecimal } from './decimal.js';
import { isJurisdiction } from './jurisdictions.js';

/** What a rule can ask of a party, each mapped to IVMS101 fields by the evaluator. */
export const ITEMS = [
  'name',
  'accountNumber',
  'address',
  'nationalIdentification',
  'customerIdentification',
  'dateAndPlaceOfBirth',
] as const;
export type Item = (typeof ITEMS)[number];

/** One item, or alternatives of which one must be met whole (each alternative: items all required). */
export type Requirement = Item | { anyOf: Item[][] };

export interface PartyRules {
  originator: Requirement[];
  beneficiary: Requirement[];
}

export interface Money {
  amount: string;
  currency: string;
}

export interface RuleEntry {
  /** The table key: a country code, `FATF`, or a group such as `EU`. */
  id: string;
  name: string;
  source: string;
  date: string;
  /** null: no threshold, the rules above it always apply. */
  threshold: (Money & { inclusive: boolean }) | null;
  above: PartyRules;
  /** Absent when there is no threshold. */
  below?: PartyRules;
  countries?: string[];
  /** From this value, a transfer from or to a self-hosted wallet needs a proof of ownership; null: none. */
  selfHostedWallet: Money | null;
  note?: string;
}

export interface RulesTable {
  entries: Map<string, RuleEntry>;
  /** The entry for a country: its own, a group listing it, or FATF. */
  forCountry(country: string): RuleEntry;
}

const DEFAULT_RULES = new URL('../../rules.json', import.meta.url);
const CURRENCY = /^[A-Z]{3}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function loadRulesTable(file: string | URL = DEFAULT_RULES): RulesTable {
  const name = file instanceof URL ? fileURLToPath(file) : file;
  const fail = (what: string): never => {
    throw new Error(`rules table ${name}: ${what}`);
  };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new Error(`rules table ${name}: cannot read it as JSON (${(cause as Error).message})`, { cause });
  }
  if (!isObject(raw)) return fail('must be a JSON object of jurisdiction → entry');
  const entries = new Map<string, RuleEntry>();
  const members = new Map<string, string>();
  for (const [id, value] of Object.entries(raw)) {
    const entry = parseEntry(id, value, (what) => fail(`"${id}" ${what}`));
    entries.set(id, entry);
    for (const country of entry.countries ?? []) {
      if (members.has(country) || (entries.has(country) && country !== id)) {
        fail(`"${country}" is listed by more than one entry`);
      }
      members.set(country, id);
    }
  }
  for (const id of entries.keys()) {
    if (members.has(id) && members.get(id) !== id) fail(`"${id}" has its own entry and is listed by another`);
  }
  const fatf = entries.get('FATF') ?? fail('needs a "FATF" entry (the baseline for unlisted jurisdictions)');
  return {
    entries,
    forCountry: (country) => entries.get(members.get(country) ?? country) ?? fatf,
  };
}

function parseEntry(id: string, v: unknown, fail: (what: string) => never): RuleEntry {
  if (id !== 'FATF' && !/^[A-Z]{2,8}$/.test(id)) fail('is not a country code, FATF or a group name');
  if (!isObject(v)) return fail('must be an object');
  const known = [
    'name',
    'source',
    'date',
    'threshold',
    'above',
    'below',
    'countries',
    'selfHostedWallet',
    'note',
  ];
  if (Object.keys(v).some((k) => !known.includes(k)))
    fail(`has unknown fields (allowed: ${known.join(', ')})`);
  for (const field of ['name', 'source'] as const) {
    if (typeof v[field] !== 'string' || v[field].trim() === '') fail(`needs a ${field}`);
  }
  if (typeof v.date !== 'string' || !DATE.test(v.date))
    fail('needs a date (YYYY-MM-DD, when the rule took effect)');
  if (v.note !== undefined && typeof v.note !== 'string') fail('has a note that is not text');
  const threshold = v.threshold === null ? null : parseMoney(v.threshold, 'threshold', fail, true);
  const above = parseParties(v.above, 'above', fail);
  if (threshold !== null && v.below === undefined) fail('has a threshold, so it needs "below"');
  const below = v.below === undefined ? undefined : parseParties(v.below, 'below', fail);
  let countries: string[] | undefined;
  if (v.countries !== undefined) {
    if (!Array.isArray(v.countries) || v.countries.some((c) => typeof c !== 'string' || !isJurisdiction(c))) {
      fail('has countries that are not ISO 3166-1 alpha-2 codes');
    }
    countries = v.countries as string[];
  } else if (id !== 'FATF' && !isJurisdiction(id)) {
    fail('is not an ISO 3166-1 alpha-2 code; a group entry needs "countries"');
  }
  const selfHostedWallet =
    v.selfHostedWallet === null || v.selfHostedWallet === undefined
      ? null
      : parseMoney(v.selfHostedWallet, 'selfHostedWallet', fail, false);
  return {
    id,
    name: v.name as string,
    source: v.source as string,
    date: v.date,
    threshold: threshold as RuleEntry['threshold'],
    above,
    ...(below ? { below } : {}),
    ...(countries ? { countries } : {}),
    selfHostedWallet,
    ...(v.note === undefined ? {} : { note: v.note as string }),
  };
}

function parseMoney(
  v: unknown,
  field: string,
  fail: (what: string) => never,
  withInclusive: boolean,
): Money & { inclusive?: boolean } {
  const allowed = withInclusive ? ['amount', 'currency', 'inclusive'] : ['amount', 'currency'];
  if (
    !isObject(v) ||
    typeof v.amount !== 'string' ||
    !isDecimal(v.amount) ||
    typeof v.currency !== 'string' ||
    !CURRENCY.test(v.currency) ||
    Object.keys(v).some((k) => !allowed.includes(k)) ||
    (withInclusive && typeof v.inclusive !== 'boolean')
  ) {
    return fail(
      `has a ${field} that is not { amount: "<decimal>", currency: "<ISO 4217>"${withInclusive ? ', inclusive: true|false' : ''} } or null`,
    );
  }
  return {
    amount: v.amount,
    currency: v.currency,
    ...(withInclusive ? { inclusive: v.inclusive as boolean } : {}),
  };
}

function parseParties(v: unknown, field: string, fail: (what: string) => never): PartyRules {
  if (!isObject(v) || Object.keys(v).some((k) => k !== 'originator' && k !== 'beneficiary')) {
    return fail(`needs "${field}": { originator: [...], beneficiary: [...] }`);
  }
  return {
    originator: parseRequirements(v.originator, `${field}.originator`, fail),
    beneficiary: parseRequirements(v.beneficiary, `${field}.beneficiary`, fail),
  };
}

function parseRequirements(v: unknown, field: string, fail: (what: string) => never): Requirement[] {
  const isItem = (x: unknown): x is Item => ITEMS.includes(x as Item);
  const bad = () => fail(`has ${field} that is not a list of ${ITEMS.join(' | ')} or { anyOf: [[items]] }`);
  if (!Array.isArray(v)) return bad();
  return v.map((r): Requirement => {
    if (isItem(r)) return r;
    if (
      isObject(r) &&
      Object.keys(r).length === 1 &&
      Array.isArray(r.anyOf) &&
      r.anyOf.length > 0 &&
      r.anyOf.every((alt) => Array.isArray(alt) && alt.length > 0 && alt.every(isItem))
    ) {
      return { anyOf: r.anyOf as Item[][] };
    }
    return bad();
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
