/**
 * Data step 0016: gives every sealed blob written before key ids (format version 1) the id of the
 * master key that seals it (SPEC §14), by re-sealing it under the current key, in batches inside
 * the migrations' transaction. A database without such blobs needs no key.
 */
import { KeyRing } from '../../crypto/envelope.js';
import { rekey } from '../../keys/rekey.js';
import { SEALED_COLUMNS } from '../../keys/sealed.js';
import type { Queryable } from '../database.js';

export async function addKeyIds(
  tx: Queryable,
  masterKey: Buffer | undefined,
  previous: readonly Buffer[] = [],
): Promise<void> {
  const probe = await tx.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM transactions WHERE get_byte(sealed_pii, 0) = 1)::int
          + (SELECT count(*) FROM webhook_secrets WHERE get_byte(sealed_secret, 0) = 1)::int AS n`,
  );
  if (masterKey === undefined) {
    if (probe[0]!.n > 0)
      throw new Error('migration 0016 re-seals stored personal data and needs HUB_MASTER_KEY');
    return;
  }
  await rekey({
    transaction: (fn) => fn(tx),
    keys: KeyRing.of(masterKey, previous),
    scope: 'legacy',
    batchSize: 500,
    // Only the tables of migrations up to 0016: later ones (users 0019, oidc_configs 0020, review_notes 0022) do not
    // exist yet here.
    columns: SEALED_COLUMNS.filter((c) => !['users', 'oidc_configs', 'review_notes'].includes(c.table)),
  });
}
