import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { eachBackend, type OrgFixture, type TestHub } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { type Json, mainRequest } from '../support/requests.js';

let receiver: Receiver;
before(async () => {
  receiver = await Receiver.start();
});
after(() => receiver.close());

/**
 * An endpoint that passed the save-time check (or was saved before the policy changed) can point
 * somewhere private by the time a delivery goes out; the send-time guard must still refuse it.
 * Such endpoints are written straight into the table, as the API refuses them.
 */
async function pointAt(hub: TestHub, org: OrgFixture, endpoint: string) {
  await hub.db.query('UPDATE organizations SET travel_endpoint = $1 WHERE id = $2', [endpoint, org.id]);
}

eachBackend(
  'SSRF guard on webhook targets',
  (hub) => {
    const cases: [string, () => string, RegExp][] = [
      ['plain http to loopback', () => `http://127.0.0.1:${new URL(receiver.url).port}`, /must use https/],
      ['a private address', () => 'https://10.0.0.1', /10\.0\.0\.1: private/],
      ['the cloud metadata address', () => 'https://169.254.169.254', /169\.254\.169\.254: cloud metadata/],
      [
        'a host name resolving to loopback',
        () => `https://localhost:${new URL(receiver.url).port}`,
        /localhost resolves to a non-public address \(loopback\)$/,
      ],
    ];

    for (const [what, endpoint, reason] of cases) {
      it(`refuses ${what} at every attempt and records why`, async () => {
        const originator = await hub().createOrg();
        const beneficiary = await hub().createOrg({ travelEndpoint: 'https://beneficiary.example' });
        await pointAt(hub(), beneficiary, endpoint());
        const res = await hub().request('POST', '/v1/transactions/initiate', {
          key: originator.apiKey,
          body: mainRequest(beneficiary.vaspDid),
        });
        assert.equal(res.status, 200, res.text);
        const ref = res.body.transactionRef;
        const failed = await eventually(async () => {
          const list = await hub().request('GET', `/v1/webhooks/deliveries?transactionRef=${ref}`, {
            key: beneficiary.apiKey,
          });
          return list.body.deliveries[0]?.status === 'FAILED' ? list.body.deliveries[0] : undefined;
        }, 'FAILED');
        assert.equal(failed.attemptLog.length, 4);
        for (const a of failed.attemptLog as Json[]) {
          assert.equal(a.statusCode, null);
          assert.match(a.error, /^target refused: /);
          assert.match(a.error, reason);
        }
        const ping = await hub().request('POST', '/v1/organizations/me/test-event', {
          key: beneficiary.apiKey,
        });
        assert.equal(ping.body.delivered, false);
        assert.match(ping.body.error, reason);
        assert.equal(receiver.requests.length, 0, 'nothing reached the private address');
      });
    }
  },
  { HUB_ALLOW_PRIVATE_ENDPOINTS: 'false' },
);
