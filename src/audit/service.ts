/**
 * The audit readers behind the routes: pages, streamed exports, the signed head, the chain's
 * verification and its kept verified state (status.ts). An organization's reads are the
 * operator's with `organizationId` fixed to itself.
 */
import { Readable } from 'node:stream';
import type { Database } from '../db/database.js';
import type { AuditSigner, Checkpoint } from './checkpoint.js';
import { type ExportFormat, exportLines, signedHead } from './export.js';
import { type AuditFilter, auditPage, decodeSeqCursor } from './reader.js';
import { type ChainStatus, ChainStatusCache, type ChainStatusOptions } from './status.js';
import { type VerifyResult, verifyDatabase } from './verify.js';

export interface AuditQuery extends AuditFilter {
  limit?: string;
  cursor?: string;
  format?: ExportFormat;
}

export class AuditService {
  private readonly status: ChainStatusCache;

  constructor(
    private readonly db: Database,
    readonly signer: AuditSigner,
    statusOptions: ChainStatusOptions = {},
  ) {
    this.status = new ChainStatusCache(() => verifyDatabase(this.db), statusOptions);
  }

  page(q: AuditQuery) {
    const before = q.cursor === undefined ? undefined : decodeSeqCursor(q.cursor);
    return auditPage(this.db, filterOf(q), before, q.limit === undefined ? 50 : Number(q.limit));
  }

  export(q: AuditQuery, format: ExportFormat): Readable {
    return Readable.from(exportLines(this.db, this.signer, filterOf(q), format), { objectMode: false });
  }

  checkpoint(): Promise<Checkpoint> {
    return signedHead(this.db, this.signer);
  }

  /** Walks the whole chain now; the result is also what `chainStatus` answers from then on. */
  verify(): Promise<VerifyResult> {
    return this.status.verifyNow();
  }

  /** The most recent walk's result, walking again at most once per interval (status.ts). */
  chainStatus(): Promise<ChainStatus> {
    return this.status.current();
  }
}

function filterOf(q: AuditQuery): AuditFilter {
  const { actor, action, transactionRef, organizationId, from, to } = q;
  return Object.fromEntries(
    Object.entries({ actor, action, transactionRef, organizationId, from, to }).filter(
      ([, v]) => v !== undefined,
    ),
  );
}
