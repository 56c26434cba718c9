/**
 * `audit verify`: walks the chain in the database, or an export offline, and names the first
 * broken row; optionally checks a checkpoint kept outside the hub against it. An export is a
 * JSON Lines file of rows in `seq` order whose last line is `{ "checkpoint": … }`. Reads
 * stream, so a chain of any length takes one batch of memory.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Queryable } from '../db/database.js';
import { type ChainBreak, ChainWalker, type LinkedRow } from './chain.js';
import { type Checkpoint, checkpointSigned, samePublicKey } from './checkpoint.js';
import { auditRows, chainHead, hashAt } from './reader.js';

export interface VerifyResult {
  ok: boolean;
  /** Rows checked. */
  rows: number;
  /** The last row that checked out. */
  head: { seq: number; hash: string };
  /** The first broken row, or what is wrong with the checkpoint. */
  broken?: ChainBreak;
  checkpoint?: { seq: number; hash: string; at: string; signed: boolean; matches: boolean };
}

/** Walks the database's chain; with a checkpoint, also whether the chain still holds it. */
export async function verifyDatabase(
  q: Queryable,
  options: { checkpoint?: Checkpoint; publicKey?: string } = {},
): Promise<VerifyResult> {
  const head = await chainHead(q);
  const walker = new ChainWalker();
  let broken: ChainBreak | undefined;
  for await (const row of auditRows(q, {}, { uptoSeq: head.seq })) {
    broken = walker.next(row);
    if (broken) break;
  }
  if (!broken && walker.last.seq !== head.seq) {
    broken = { seq: walker.last.seq + 1, reason: `row seq ${walker.last.seq + 1} is missing (deleted?)` };
  }
  const result: VerifyResult = { ok: !broken, rows: walker.rows, head: walker.last, broken };
  if (options.checkpoint) {
    const held = options.checkpoint.seq === 0 ? undefined : await hashAt(q, options.checkpoint.seq);
    const matches =
      options.checkpoint.seq === 0 ? true : held !== undefined && held === options.checkpoint.hash;
    checkCheckpoint(result, options.checkpoint, options.publicKey, matches, held === undefined);
  }
  return result;
}

/**
 * Checks an export offline: its rows link up (from seq 1 without gaps, unless `partial` allows a
 * filtered export's gaps), its checkpoint is signed by `publicKey`, and the checkpoint's row, when
 * the export holds it, has the checkpoint's hash.
 */
export async function verifyExport(
  file: string,
  options: { publicKey?: string; partial?: boolean } = {},
): Promise<VerifyResult> {
  const walker = new ChainWalker(!options.partial);
  let broken: ChainBreak | undefined;
  let checkpoint: Checkpoint | undefined;
  let lineNo = 0;
  const lines = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    if (checkpoint) {
      broken = {
        seq: walker.last.seq + 1,
        reason: `line ${lineNo} follows the checkpoint, which must be last`,
      };
      break;
    }
    let value: { checkpoint?: Checkpoint } & Partial<LinkedRow>;
    try {
      value = JSON.parse(line);
    } catch {
      broken = { seq: walker.last.seq + 1, reason: `line ${lineNo} is not JSON` };
      break;
    }
    if (value.checkpoint) {
      checkpoint = value.checkpoint;
      continue;
    }
    broken = walker.next(value as LinkedRow);
    if (broken) break;
  }
  lines.close();
  const result: VerifyResult = { ok: !broken, rows: walker.rows, head: walker.last, broken };
  if (!broken) {
    if (!checkpoint) {
      result.ok = false;
      result.broken = { seq: walker.last.seq + 1, reason: 'the export has no checkpoint line (cut short?)' };
    } else {
      // The export's rows end at the checkpoint (an unfiltered export ends exactly there).
      const last = walker.last;
      const holds = last.seq === checkpoint.seq;
      const matches = holds ? last.hash === checkpoint.hash : !!options.partial && last.seq <= checkpoint.seq;
      checkCheckpoint(result, checkpoint, options.publicKey, matches, !holds && !options.partial);
    }
  }
  return result;
}

function checkCheckpoint(
  result: VerifyResult,
  cp: Checkpoint,
  publicKey: string | undefined,
  matches: boolean,
  missing: boolean,
) {
  const signed =
    checkpointSigned(cp, publicKey ?? cp.publicKey) &&
    (publicKey === undefined || samePublicKey(publicKey, cp.publicKey));
  result.checkpoint = { seq: cp.seq, hash: cp.hash, at: cp.at, signed, matches };
  if (result.broken) return;
  if (!signed) {
    result.ok = false;
    result.broken = {
      seq: cp.seq,
      reason: 'the checkpoint’s signature does not verify with the given public key',
    };
  } else if (!matches) {
    result.ok = false;
    result.broken = {
      seq: cp.seq,
      reason: missing
        ? `row seq ${cp.seq} of the checkpoint is missing (the chain was cut short)`
        : `row seq ${cp.seq} does not have the checkpoint’s hash (the chain was rewritten)`,
    };
  }
}
