/**
 * Data step 0015_audit_links: chains the audit rows written before migration 0015, in `id` order
 * (the order they were written in), then makes `seq`, `prev_hash` and `hash` NOT NULL. Runs inside
 * the migrations' transaction right after 0015_audit_chain.sql, with the append-only trigger
 * switched off for that transaction's own UPDATEs and on again before it commits.
 */
import { GENESIS, linkHash } from '../../audit/chain.js';
import { AT_SQL } from '../../audit/store.js';
import type { Queryable } from '../database.js';

const BATCH = 1000;

export async function linkAuditRows(tx: Queryable): Promise<void> {
  await tx.exec('ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only');
  let prevHash = GENESIS;
  let seq = 0;
  let afterId = 0;
  for (;;) {
    const rows = await tx.query<{
      id: number;
      at: string;
      actor: string;
      action: string;
      subject_type: string;
      subject_id: string;
      details: Record<string, unknown> | null;
    }>(
      `SELECT id, ${AT_SQL} AS at, actor, action, subject_type, subject_id, details
         FROM audit_events WHERE id > $1 ORDER BY id LIMIT ${BATCH}`,
      [afterId],
    );
    for (const r of rows) {
      seq++;
      const hash = linkHash(prevHash, {
        seq,
        at: r.at,
        actor: r.actor,
        action: r.action,
        subjectType: r.subject_type,
        subjectId: r.subject_id,
        details: r.details,
      });
      await tx.query('UPDATE audit_events SET seq = $2, prev_hash = $3, hash = $4 WHERE id = $1', [
        r.id,
        seq,
        prevHash,
        hash,
      ]);
      prevHash = hash;
      afterId = r.id;
    }
    if (rows.length < BATCH) break;
  }
  await tx.exec(`
    ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only;
    ALTER TABLE audit_events ALTER COLUMN seq SET NOT NULL,
      ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL;`);
}
