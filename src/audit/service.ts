/**
 * The audit readers behind the routes and the CLI: pages, streamed exports, the signed head and
 * the chain's verification. An organization's reads are the operator's with `organizationId`
 * fixed to itself.
 */
import { Readable } from 'node:stream';
import type { Database } from '../db/database.js';
import type { AuditSigner, Checkpoint } from './checkpoint.js';
import { type ExportFormat, exportLines, signedHead } from './export.js';
import { type AuditFilter, auditPage, decodeSeqCursor } from './reader.js';
import { type VerifyResult, verifyDatabase } from './verify.js';

export interface AuditQuery extends AuditFilter {
  limit?: string;
  cursor?: string;
  format?: ExportFormat;
}

export class AuditService {
  constructor(
    private readonly db: Database,
    readonly signer: AuditSigner,
  ) {}

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

  verify(): Promise<VerifyResult> {
    return verifyDatabase(this.db);
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
