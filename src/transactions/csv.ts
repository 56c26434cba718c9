/**
 * CSV of transaction lists (SPEC §17 `format=csv`): RFC 4180 quoting, and safe to open in a
 * spreadsheet: a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is taken as
 * text (a leading `'`), so no cell is ever read as a formula. Pure.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: neutralised, then quoted when it holds a quote, comma or line break. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 has it. */
export function csvRow(cells: readonly (string | number | null | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * The names of one party's persons in an IVMS101 message, for people to read: a natural person's
 * "secondary primary" (given names, then the family name), a legal person's name; `; ` between them.
 * Local and phonetic forms are left out (the legal name is the one a compliance officer matches).
 */
export function partyNames(message: unknown, party: 'originator' | 'beneficiary'): string {
  const names: string[] = [];
  for (const person of records(field(field(message, party), `${party}Persons`))) {
    for (const n of records(field(field(person, 'naturalPerson'), 'name'))) {
      for (const id of records(field(n, 'nameIdentifier'))) {
        names.push(
          [id.secondaryIdentifier, id.primaryIdentifier].filter((x) => typeof x === 'string').join(' '),
        );
      }
    }
    for (const n of records(field(field(person, 'legalPerson'), 'name'))) {
      for (const id of records(field(n, 'nameIdentifier') ?? field(n, 'legalPersonNameIdentifier'))) {
        if (typeof id.legalPersonName === 'string') names.push(id.legalPersonName);
      }
    }
  }
  return [...new Set(names.filter((n) => n.length > 0))].join('; ');
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** An object or an array of them, as an array (IVMS101 allows either in places). */
function records(value: unknown): Record<string, unknown>[] {
  const all = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return all.filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object');
}

/** Rows per query of a CSV export: small enough that the first bytes go out at once. */
const CSV_BATCH = 500;

/** Where a keyset-paged read goes on from: the last row's time (to the microsecond) and ref. */
export type After = { createdAt: string; ref: string };

/**
 * The pages of a keyset-paged read, CSV_BATCH rows each, until one comes back short: what an
 * export walks, a page at a time, so that nothing holds every row at once.
 */
export async function* exportPages<T extends { cursorAt: string; ref: string }>(
  read: (after: After | undefined, limit: number) => Promise<T[]>,
): AsyncGenerator<T[]> {
  let after: After | undefined;
  for (;;) {
    const page = await read(after, CSV_BATCH);
    if (page.length > 0) yield page;
    const last = page[page.length - 1];
    if (!last || page.length < CSV_BATCH) return;
    after = { createdAt: last.cursorAt, ref: last.ref };
  }
}

/** The media type of the CSV exports. */
export const CSV_TYPE = 'text/csv; charset=utf-8';

/** A UTC timestamp for an export's file name: `20261128T043512Z`. */
export function fileStamp(at = new Date()): string {
  return `${at.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;
}
