/**
 * `GET /v1/audit/status` (docs/records.md, "The chain's verified state") on both databases: any
 * key reads the result of the hub's most recent walk of the chain; requests within the interval
 * start no walk of their own (the answer stays the same while rows are added); the operator's
 * verify walks at once and replaces it, so a row changed behind the trigger's back shows as
 * broken to organizations, by its seq and never by its content.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainStatus } from '../../src/audit/status.js';
import { eachBackend, type OrgFixture, type TestHub } from '../harness.js';

/** As the database's owner could: with the triggers off for one transaction. */
function bypassing(hub: TestHub, sql: string, params: unknown[] = []) {
  return hub.db.transaction(async (tx) => {
    await tx.query('SET LOCAL session_replication_role = replica');
    await tx.query(sql, params);
  });
}

eachBackend(
  'audit chain status',
  (hub) => {
    let org: OrgFixture;
    let readKey = '';
    let first: ChainStatus;

    it('answers any key the result of a walk of the whole chain, with its time', async () => {
      org = await hub().createOrg();
      const k = await hub().request('POST', '/v1/organizations/me/api-keys', {
        key: org.apiKey,
        body: { scope: 'read' },
      });
      assert.equal(k.status, 201, k.text);
      readKey = k.body.apiKey;
      const before = Date.now();
      const res = await hub().request<ChainStatus>('GET', '/v1/audit/status', { key: readKey });
      assert.equal(res.status, 200, res.text);
      first = res.body;
      const [count] = await hub().db.query<{ n: number; head: number }>(
        'SELECT count(*)::int AS n, max(seq) AS head FROM audit_events',
      );
      assert.equal(first.ok, true);
      assert.equal(first.rows, count!.n);
      assert.equal(first.head.seq, count!.head);
      assert.equal(first.broken, undefined);
      assert.ok(Date.parse(first.checkedAt) >= before - 1000 && Date.parse(first.checkedAt) <= Date.now());
      assert.equal(Date.parse(first.refreshAfter) - Date.parse(first.checkedAt), 5 * 60_000);

      for (const key of [org.apiKey, hub().adminKey]) {
        const again = await hub().request('GET', '/v1/audit/status', { key });
        assert.equal(again.status, 200, again.text);
      }
      assert.equal((await hub().request('GET', '/v1/audit/status')).status, 401);
      assert.equal((await hub().request('GET', '/v1/audit/status', { key: 'trh_nope' })).status, 401);
    });

    it('starts no walk per request: rows added within the interval are not in the answer', async () => {
      for (let i = 0; i < 2; i++) {
        const k = await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey, body: {} });
        assert.equal(k.status, 201, k.text);
      }
      const res = await hub().request('GET', '/v1/audit/status', { key: org.apiKey });
      assert.deepEqual(res.body, first, 'the same walk’s result');
    });

    it('shows the operator’s newer walk, and a row changed behind the trigger as broken by its seq', async () => {
      const verified = await hub().admin('GET', '/v1/admin/audit/verify');
      assert.deepEqual([verified.status, verified.body.ok], [200, true], verified.text);
      const now = await hub().request('GET', '/v1/audit/status', { key: readKey });
      assert.equal(now.body.rows, first.rows + 2, 'the operator’s walk counted the new rows');
      assert.ok(Date.parse(now.body.checkedAt) >= Date.parse(first.checkedAt));

      const [row] = await hub().db.query<{ actor: string }>('SELECT actor FROM audit_events WHERE seq = 2');
      const marker = 'operator:tampered-in-status-test';
      await bypassing(hub(), 'UPDATE audit_events SET actor = $1 WHERE seq = 2', [marker]);
      try {
        const cached = await hub().request('GET', '/v1/audit/status', { key: readKey });
        assert.equal(cached.body.ok, true, 'no walk yet: still the last result');
        const broken = await hub().admin('GET', '/v1/admin/audit/verify');
        assert.deepEqual([broken.body.ok, broken.body.broken?.seq], [false, 2], broken.text);
        const seen = await hub().request('GET', '/v1/audit/status', { key: readKey });
        assert.equal(seen.status, 200);
        assert.equal(seen.body.ok, false);
        assert.deepEqual(seen.body.broken, {
          seq: 2,
          reason: 'row seq 2: hash does not match its content (changed?)',
        });
        assert.deepEqual(seen.body.head, { seq: 1, hash: broken.body.head.hash });
        assert.ok(!seen.text.includes(marker), 'the row’s content is not in the answer');
      } finally {
        await bypassing(hub(), 'UPDATE audit_events SET actor = $1 WHERE seq = 2', [row!.actor]);
      }
      const healed = await hub().admin('GET', '/v1/admin/audit/verify');
      assert.equal(healed.body.ok, true);
      assert.equal((await hub().request('GET', '/v1/audit/status', { key: org.apiKey })).body.ok, true);
    });
  },
  { HUB_WORKER: 'false' },
);
