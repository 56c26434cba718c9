/**
 * TRP counterparties for the operator (SPEC §16): list the peers the hub knows, add one, pin its
 * certificate, block it, set its version and amount encoding. Every change is audited with what
 * it set. Fingerprints are kept upper-case, as Node reports a client certificate's.
 */
import { type Actor, recordAudit } from '../audit/store.js';
import type { Database } from '../db/database.js';
import { AppError } from '../http/errors.js';
import type { AddCounterparty, CounterpartyView, UpdateCounterparty } from './counterparty-schemas.js';
import * as peers from './peer-store.js';

export class TrpCounterparties {
  constructor(private readonly db: Database) {}

  async list(): Promise<{ counterparties: CounterpartyView[] }> {
    return { counterparties: await peers.listPeers(this.db) };
  }

  add(body: AddCounterparty, actor: Actor): Promise<CounterpartyView> {
    return this.db.transaction(async (tx) => {
      const added = await peers.insertPeer(tx, {
        host: body.host,
        certificateFingerprint: body.certificateFingerprint?.toUpperCase() ?? null,
        apiVersion: body.apiVersion ?? null,
        amountEncoding: body.amountEncoding ?? null,
        blocked: body.blocked ?? false,
      });
      if (!added) throw new AppError('ALREADY_EXISTS', 'The hub already knows a TRP peer at this host.');
      await recordAudit(tx, {
        actor,
        action: 'trp.counterparty_added',
        subjectType: 'trp_counterparty',
        subjectId: added.id,
        details: { ...body },
      });
      return added;
    });
  }

  update(id: string, body: UpdateCounterparty, actor: Actor): Promise<CounterpartyView> {
    return this.db.transaction(async (tx) => {
      const fingerprint = body.certificateFingerprint;
      const updated = await peers.updatePeer(tx, id, {
        ...body,
        ...(fingerprint !== undefined ? { certificateFingerprint: fingerprint?.toUpperCase() ?? null } : {}),
      });
      if (!updated) throw new AppError('NOT_FOUND', 'No such TRP counterparty.');
      await recordAudit(tx, {
        actor,
        action: 'trp.counterparty_updated',
        subjectType: 'trp_counterparty',
        subjectId: id,
        details: { ...body },
      });
      return updated;
    });
  }
}
