/**
 * Migrations on data written before them: the data step 0008 seals the decline reasons that
 * earlier builds stored in plaintext, and 0009 drops the plaintext columns; 0015 chains the audit
 * rows written before it. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { verifyDatabase } from '../../src/audit/verify.js';
import { keyIdOf, openPii, sealedUnder } from '../../src/crypto/envelope.js';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';
import { secretContext } from '../../src/directory/keys.js';
import { openReason } from '../../src/transactions/reasons.js';
import { PG_ADMIN_URL, pgAdmin } from '../harness.js';
import { sealV1 } from '../support/legacy-envelope.js';

const MIGRATIONS = new URL('../../migrations/', import.meta.url);

/** A database as a build before 0008 left it: the SQL migrations up to 0007 applied. */
async function databaseBefore0008(db: Database): Promise<void> {
  await db.exec(
    'CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const file of readdirSync(MIGRATIONS).sort()) {
    if (file >= '0008') break;
    await db.exec(readFileSync(new URL(file, MIGRATIONS), 'utf8'));
    await db.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
  }
}

/** A declined transaction as earlier builds stored it: the reason in plaintext in three tables. */
async function declinedInPlaintext(db: Database, reason: object): Promise<string> {
  const org = randomUUID();
  const ref = randomUUID();
  await db.query(`INSERT INTO organizations (id, name, vasp_did) VALUES ($1, 'A', $2)`, [
    org,
    `did:web:${org}.example`,
  ]);
  await db.query(
    `INSERT INTO transactions (ref, protocol, status, originator_id, originator_did, beneficiary_id, asset,
       asset_decimals, amount, destination_address, sealed_pii, decline_reason)
     VALUES ($1, 'MAIN', 'DECLINED', $2, 'did:web:a.example', $2, 'BTC-BTC', 8, '1', 'bc1q', '\\x00', $3)`,
    [ref, org, reason],
  );
  await db.query(
    `INSERT INTO transaction_history (transaction_ref, status, actor, reason) VALUES ($1, 'DECLINED', 'did:web:b', $2)`,
    [ref, reason],
  );
  await db.query(
    `INSERT INTO deliveries (id, message_id, channel, event, organization_id, transaction_ref, payload)
     VALUES ($1, $2, 'webhook', 'declined', $3, $4, $5)`,
    [randomUUID(), `msg_${randomUUID()}`, org, ref, { transactionRef: ref, status: 'DECLINED', reason }],
  );
  return ref;
}

const backends: [string, () => Promise<{ db: Database; drop: () => Promise<void> }>][] = [
  [
    'pglite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'trh-migrate-'));
      const db = await openPglite(dir);
      return { db, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'postgres',
    async () => {
      const name = `trh_migrate_${randomBytes(6).toString('hex')}`;
      await pgAdmin(`CREATE DATABASE ${name}`);
      const url = new URL(PG_ADMIN_URL);
      url.pathname = `/${name}`;
      const db = await openPostgres(url.toString(), 2);
      return { db, drop: () => pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => {}) };
    },
  ],
];

for (const [backend, open] of backends) {
  describe(`migrations on existing data [${backend}]`, () => {
    const opened: { db: Database; drop: () => Promise<void> }[] = [];
    const fresh = async () => {
      const o = await open();
      opened.push(o);
      await databaseBefore0008(o.db);
      return o.db;
    };
    after(async () => {
      for (const o of opened) {
        await o.db.close();
        await o.drop();
      }
    });

    it('seals stored decline reasons, takes them out of queued payloads and drops the plaintext columns', async () => {
      const db = await fresh();
      const masterKey = randomBytes(32);
      const reason = { category: 'SANCTIONS_MATCH', description: 'Listed: Jane Roe' };
      const ref = await declinedInPlaintext(db, reason);
      for (const [action, details] of [
        ['organization.created', { name: 'A', amount: 1.5, big: 1e21 }],
        ['api_key.created', null],
        ['transaction.pii_read', { nested: { b: [1, 'ü'], a: true } }],
      ] as const) {
        await db.query(
          `INSERT INTO audit_events (actor, action, subject_type, subject_id, details) VALUES ('operator', $1, 'organization', $2, $3)`,
          [action, ref, details],
        );
      }
      assert.deepEqual(await migrate(db, { masterKey }), [
        ...readdirSync(MIGRATIONS)
          .filter((f) => f > '0008')
          .sort()
          .flatMap((f) =>
            f.startsWith('0009')
              ? ['0008_seal_reasons', f]
              : f === '0015_audit_chain.sql'
                ? [f, '0015_audit_links']
                : [f],
          )
          .flatMap((f) => (f.startsWith('0017') ? ['0017_operator_name_keys', f] : [f]))
          .flatMap((f) => (f.startsWith('0016') ? [f, '0016_reseal_key_ids'] : [f])),
      ]);
      // 0015 chained the audit rows written before it, in the order they were written.
      const chain = await verifyDatabase(db);
      assert.deepEqual([chain.ok, chain.rows], [true, 3], JSON.stringify(chain));
      const audit = await db.query<{ seq: number; action: string }>(
        'SELECT seq, action FROM audit_events ORDER BY seq',
      );
      assert.deepEqual(
        audit.map((r) => r.action),
        ['organization.created', 'api_key.created', 'transaction.pii_read'],
      );
      const [t] = await db.query('SELECT sealed_reason FROM transactions WHERE ref = $1', [ref]);
      assert.deepEqual(openReason(masterKey, ref, t!.sealed_reason as Uint8Array), reason);
      const [h] = await db.query('SELECT sealed_reason FROM transaction_history WHERE transaction_ref = $1', [
        ref,
      ]);
      assert.deepEqual(openReason(masterKey, ref, h!.sealed_reason as Uint8Array), reason);
      const [d] = await db.query<{ payload: Record<string, unknown> }>(
        'SELECT payload FROM deliveries WHERE transaction_ref = $1',
        [ref],
      );
      assert.deepEqual(d!.payload, { transactionRef: ref, status: 'DECLINED' });
      const columns = await db.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns
          WHERE table_name IN ('transactions', 'transaction_history') AND column_name IN ('decline_reason', 'reason')`,
      );
      assert.deepEqual(columns, []);
      for (const table of ['transactions', 'transaction_history', 'deliveries']) {
        const rows = await db.query(`SELECT t::text AS row FROM ${table} t`);
        assert.ok(!rows.some((r) => String(r.row).includes('Jane Roe')), table);
      }
    });

    it('keys operator names in their NFKC case-folded form, keeping active ones that collided apart', async () => {
      const db = await fresh();
      const add = async (name: string, revoked: boolean) => {
        const id = randomUUID();
        await db.query(
          `INSERT INTO operators (id, name, prefix, key_hash, created_by, revoked_at)
           VALUES ($1, $2, 'trh_op_x', $3, 'operator:bootstrap', $4)`,
          [id, name, randomBytes(32), revoked ? new Date() : null],
        );
        return id;
      };
      const alice = await add('Alice', false);
      const wide = await add('\uff21lice', false); // full-width A: one name in the new form
      const gone = await add('ALICE', true);
      await migrate(db, { masterKey: randomBytes(32) });
      const keys = new Map(
        (await db.query<{ id: string; name_key: string }>('SELECT id, name_key FROM operators')).map((r) => [
          r.id,
          r.name_key,
        ]),
      );
      assert.deepEqual(
        [keys.get(alice), keys.get(wide), keys.get(gone)],
        ['alice', `alice#${wide}`, 'alice'],
      );
      await assert.rejects(
        db.query(
          `INSERT INTO operators (id, name, name_key, prefix, key_hash, created_by)
           VALUES ($1, 'ALİCE', 'alice', 'trh_op_y', $2, 'operator:bootstrap')`,
          [randomUUID(), randomBytes(32)],
        ),
        'an active name key is unique',
      );
    });

    it('refuses to run without the master key when there is something to seal, and changes nothing', async () => {
      const db = await fresh();
      await declinedInPlaintext(db, { category: 'USER_REQUEST', description: 'asked' });
      await assert.rejects(migrate(db), /needs HUB_MASTER_KEY/);
      const [t] = await db.query(
        `SELECT count(*)::int AS n FROM transactions WHERE decline_reason IS NOT NULL`,
      );
      assert.equal(t!.n, 1, 'the migrations rolled back as one');
    });

    it("gives sealed blobs from before key ids the current key's id (0016), opening them with any configured key", async () => {
      const db = await fresh();
      const old = randomBytes(32);
      const current = randomBytes(32);
      await migrate(db, { masterKey: old });
      const org = randomUUID();
      const ref = randomUUID();
      const secretId = randomUUID();
      const pii = '{"originator":{"name":"Legacy Person"}}';
      await db.query(`INSERT INTO organizations (id, name, vasp_did) VALUES ($1, 'A', $2)`, [
        org,
        `did:web:${org}.example`,
      ]);
      await db.query(
        `INSERT INTO transactions (ref, protocol, status, originator_id, originator_did, beneficiary_id, asset,
           asset_decimals, amount, destination_address, sealed_pii)
         VALUES ($1, 'MAIN', 'NEW', $2, 'did:web:a.example', $2, 'BTC-BTC', 8, '1', 'bc1q', $3)`,
        [ref, org, sealV1(old, ref, pii)],
      );
      await db.query('INSERT INTO webhook_secrets (id, organization_id, sealed_secret) VALUES ($1, $2, $3)', [
        secretId,
        org,
        sealV1(old, secretContext(org), 'whsec_legacy'),
      ]);
      await db.query(`DELETE FROM schema_migrations WHERE name = '0016_reseal_key_ids'`);
      await assert.rejects(migrate(db), /0016 .*needs HUB_MASTER_KEY/);

      assert.deepEqual(await migrate(db, { masterKey: current, previousMasterKeys: [old] }), [
        '0016_reseal_key_ids',
      ]);
      const [t] = await db.query('SELECT sealed_pii FROM transactions WHERE ref = $1', [ref]);
      const [w] = await db.query('SELECT sealed_secret FROM webhook_secrets WHERE id = $1', [secretId]);
      assert.equal(sealedUnder(t!.sealed_pii as Uint8Array), keyIdOf(current));
      assert.equal(sealedUnder(w!.sealed_secret as Uint8Array), keyIdOf(current));
      assert.equal(openPii(current, ref, t!.sealed_pii as Uint8Array), pii);
      assert.equal(openPii(current, secretContext(org), w!.sealed_secret as Uint8Array), 'whsec_legacy');
    });
  });
}
