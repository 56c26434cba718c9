/**
 * Exports of the audit chain as JSON Lines or CSV, produced line by line from batched reads, so
 * that memory stays flat however many rows go out. The head is read and signed first; the rows
 * up to it follow in chain order and the checkpoint comes last (SPEC §14): rows written while
 * the export runs belong to the next one.
 */
import type { Queryable } from '../db/database.js';
import type { LinkedRow } from './chain.js';
import type { AuditSigner, Checkpoint } from './checkpoint.js';
import { type AuditFilter, auditRows, chainHead } from './reader.js';

export type ExportFormat = 'jsonl' | 'csv';

export const EXPORT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/jsonl; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

const CSV_COLUMNS = [
  'record',
  'seq',
  'at',
  'actor',
  'action',
  'subjectType',
  'subjectId',
  'details',
  'prevHash',
  'hash',
  'signature',
  'publicKey',
] as const;

/** The checkpoint the export ends with, taken before its rows are read. */
export async function signedHead(q: Queryable, signer: AuditSigner): Promise<Checkpoint> {
  return signer.sign(await chainHead(q), new Date().toISOString());
}

export async function* exportLines(
  q: Queryable,
  signer: AuditSigner,
  filter: AuditFilter,
  format: ExportFormat,
): AsyncGenerator<string> {
  const checkpoint = await signedHead(q, signer);
  if (format === 'csv') yield csvLine(CSV_COLUMNS);
  for await (const row of auditRows(q, filter, { uptoSeq: checkpoint.seq })) {
    yield format === 'jsonl' ? `${JSON.stringify(row)}\n` : csvLine(csvEvent(row));
  }
  yield format === 'jsonl'
    ? `${JSON.stringify({ checkpoint })}\n`
    : csvLine([
        'checkpoint',
        String(checkpoint.seq),
        checkpoint.at,
        '',
        '',
        '',
        '',
        '',
        '',
        checkpoint.hash,
        checkpoint.signature,
        checkpoint.publicKey,
      ]);
}

function csvEvent(r: LinkedRow): string[] {
  return [
    'event',
    String(r.seq),
    r.at,
    r.actor,
    r.action,
    r.subjectType,
    r.subjectId,
    r.details === null ? '' : JSON.stringify(r.details),
    r.prevHash,
    r.hash,
    '',
    '',
  ];
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled; CRLF ends a row. */
export function csvLine(fields: readonly string[]): string {
  return `${fields.map((f) => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',')}\r\n`;
}
