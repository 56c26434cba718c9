/**
 * The audit hash chain (SPEC §14), as pure functions shared by the hub, the `audit verify`
 * command and the offline check of an export. Each row links to the one before it:
 *
 *   hash = hex(SHA-256(UTF-8(prevHash ‖ JCS(row))))
 *
 * where `prevHash` is the previous row's `hash` as 64 lower-case hex characters (64 zeros before
 * the first row), `‖` is plain concatenation, and JCS is RFC 8785 canonical JSON of exactly the
 * fields of `ChainRow` (`details` null when the row has none). Changing, deleting or reordering a
 * row breaks the link at that row or the next; only a checkpoint kept outside the hub (see
 * checkpoint.ts) shows that a whole chain was rewritten or its tail dropped.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The `prevHash` of the first row. */
export const GENESIS = '0'.repeat(64);

/** What the hash covers: one audit row as every reader and export shows it. */
export interface ChainRow {
  seq: number;
  /** ISO 8601 in UTC with milliseconds, e.g. 2026-11-27T17:12:41.123Z. */
  at: string;
  actor: string;
  action: string;
  subjectType: string;
  subjectId: string;
  details: Record<string, unknown> | null;
}

export interface LinkedRow extends ChainRow {
  prevHash: string;
  hash: string;
}

/** RFC 8785 canonical JSON of a value that is plain JSON (no undefined, functions or cycles). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('not a JSON value');
  return text;
}

export function linkHash(prevHash: string, row: ChainRow): string {
  const content: ChainRow = {
    seq: row.seq,
    at: row.at,
    actor: row.actor,
    action: row.action,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    details: row.details ?? null,
  };
  return createHash('sha256')
    .update(prevHash + canonicalJson(content), 'utf8')
    .digest('hex');
}

/** The first row that breaks the chain, and why, in words an auditor can act on. */
export interface ChainBreak {
  seq: number;
  reason: string;
}

/**
 * Walks rows in `seq` order and reports the first break. `from` is the head the walk starts after
 * (the genesis for a whole chain). With `contiguous: false` (a filtered export) a gap in `seq`
 * is allowed; each row's own hash is still checked, and the link wherever rows are neighbours.
 */
export class ChainWalker {
  private head: { seq: number; hash: string };
  private count = 0;

  constructor(
    private readonly contiguous = true,
    from: { seq: number; hash: string } = { seq: 0, hash: GENESIS },
  ) {
    this.head = { ...from };
  }

  get last(): { seq: number; hash: string } {
    return { ...this.head };
  }

  get rows(): number {
    return this.count;
  }

  /** Takes the next row; returns the break it shows, if any (the walk should stop there). */
  next(row: LinkedRow): ChainBreak | undefined {
    const { seq } = row;
    if (!Number.isSafeInteger(seq) || seq <= this.head.seq) {
      return { seq, reason: `row seq ${seq} is out of order (after seq ${this.head.seq})` };
    }
    const neighbour = seq === this.head.seq + 1;
    if (!neighbour && this.contiguous) {
      const missing = this.head.seq + 1;
      return {
        seq: missing,
        reason:
          missing === seq - 1
            ? `row seq ${missing} is missing (deleted?)`
            : `rows seq ${missing} to ${seq - 1} are missing (deleted?)`,
      };
    }
    if (neighbour && row.prevHash !== this.head.hash) {
      return { seq, reason: `row seq ${seq}: prevHash does not match the hash of seq ${this.head.seq}` };
    }
    if (linkHash(row.prevHash, row) !== row.hash) {
      return { seq, reason: `row seq ${seq}: hash does not match its content (changed?)` };
    }
    this.head = { seq, hash: row.hash };
    this.count++;
    return undefined;
  }
}
