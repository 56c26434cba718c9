import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachBackend } from '../harness.js';
import { mainRequest } from '../support/requests.js';

eachBackend(
  'operator stats',
  (hub) => {
    it('counts nothing on a fresh hub', async () => {
      const res = await hub().admin('GET', '/v1/admin/stats');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        transactionsByStatus: {
          NEW: 0,
          RECEIVER_NOTIFIED: 0,
          CONFIRMED: 0,
          DECLINED: 0,
          CANCELLED: 0,
          EXPIRED: 0,
        },
        deliveries: { pending: 0, failed: 0, oldestPendingAgeSeconds: null },
        organizations: { total: 0, verified: 0 },
      });
    });

    it('counts transactions by status, the delivery queue and its oldest entry, and organizations', async () => {
      const originator = await hub().createOrg({ travelEndpoint: 'https://originator.example' });
      const beneficiary = await hub().createOrg({
        travelEndpoint: 'https://beneficiary.example',
        organizationType: 'verified',
      });
      const refs: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await hub().request('POST', '/v1/transactions/initiate', {
          key: originator.apiKey,
          body: mainRequest(beneficiary.vaspDid),
        });
        assert.equal(res.status, 200, res.text);
        refs.push(res.body.transactionRef);
      }
      await hub().acknowledgeReceived(refs[0]!);
      await hub().db.query(
        `UPDATE deliveries SET status = 'FAILED' WHERE transaction_ref = $1 AND event = 'received'`,
        [refs[1]],
      );
      await hub().db.query(
        `UPDATE deliveries SET created_at = now() - interval '90 seconds' WHERE transaction_ref = $1`,
        [refs[2]],
      );
      const res = await hub().admin('GET', '/v1/admin/stats');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.transactionsByStatus, {
        NEW: 2,
        RECEIVER_NOTIFIED: 1,
        CONFIRMED: 0,
        DECLINED: 0,
        CANCELLED: 0,
        EXPIRED: 0,
      });
      assert.equal(res.body.deliveries.failed, 1);
      assert.equal(res.body.deliveries.pending, 2);
      const age = res.body.deliveries.oldestPendingAgeSeconds;
      assert.ok(age >= 90 && age < 120, String(age));
      assert.deepEqual(res.body.organizations, { total: 2, verified: 1 });

      // A message HELD behind the FAILED one is still owed: it counts as pending.
      const hash = await hub().request('POST', '/v1/transactions/tx-hash', {
        key: originator.apiKey,
        body: { transactionRef: refs[1], txHash: '0xabc' },
      });
      assert.equal(hash.status, 200, hash.text);
      const held = await hub().db.query<{ status: string }>(
        `SELECT status FROM deliveries WHERE transaction_ref = $1 AND event = 'tx-hash'`,
        [refs[1]],
      );
      assert.deepEqual(held, [{ status: 'HELD' }]);
      const after = await hub().admin('GET', '/v1/admin/stats');
      assert.equal(after.body.deliveries.pending, 3);
    });

    it('is for the operator only', async () => {
      const org = await hub().createOrg();
      const res = await hub().request('GET', '/v1/admin/stats', { key: org.apiKey });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'FORBIDDEN');
      assert.equal((await hub().request('GET', '/v1/admin/stats')).status, 401);
    });
  },
  // The worker stays off so queued deliveries keep the state this suite gives them.
  { HUB_WORKER: 'false' },
);
