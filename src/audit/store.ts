/**
 * The operator audit log: one append-only row per change to the directory and per read of
 * personal data. Callers write it inside the same database transaction as the change, so a
 * change without its audit row cannot exist. `details` never holds personal data or secrets.
 */
import type { Queryable } from '../db/database.js';

/**
 * Who acted: a named operator as `operator:<id>:<name>` (`operator:bootstrap` for HUB_ADMIN_KEY,
 * `operator:cli` for the command line), an organization as `org:<id>`, whoever held the claim link
 * of a NOTIFY transaction as `claim:<transactionRef>`, a TRP VASP as `trp:<host>` (its
 * certificate in the details), or the hub itself.
 * (Rows written before named operators say `operator`; before migration 0017, `operator:<name>`.)
 */
export type Actor = `operator:${string}` | `org:${string}` | `claim:${string}` | `trp:${string}` | 'hub';

export interface AuditEvent {
  actor: Actor;
  action: string;
  subjectType:
    | 'organization'
    | 'api_key'
    | 'webhook_secret'
    | 'transaction'
    | 'operator'
    | 'application'
    | 'travel_address'
    | 'trp_counterparty';
  subjectId: string;
  details?: Record<string, unknown>;
}

export async function recordAudit(q: Queryable, e: AuditEvent): Promise<void> {
  await q.query(
    'INSERT INTO audit_events (actor, action, subject_type, subject_id, details) VALUES ($1, $2, $3, $4, $5)',
    [e.actor, e.action, e.subjectType, e.subjectId, e.details ?? null],
  );
}
