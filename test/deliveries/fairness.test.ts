/**
 * Fairness between recipients (SPEC §13), through the whole hub with real receivers: a receiver
 * that hangs or keeps failing holds at most its own few worker slots and never delays the others.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { OUTBOX_CHANNEL } from '../../src/deliveries/outbox.js';
import { eachBackend, type OrgFixture } from '../harness.js';
import { Receiver } from '../support/receiver.js';
import { mainRequest } from '../support/requests.js';

const receivers: Receiver[] = [];
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

eachBackend(
  'fairness between recipients',
  (hub) => {
    const setup = async () => {
      const receiver = await Receiver.start();
      receivers.push(receiver);
      const originator = await hub().createOrg({ travelEndpoint: `${receiver.url}/orig` });
      const slow = await hub().createOrg({ travelEndpoint: `${receiver.url}/slow` });
      const healthy = await hub().createOrg({ travelEndpoint: `${receiver.url}/healthy` });
      return { receiver, originator, slow, healthy };
    };
    const initiate = async (originator: OrgFixture, beneficiary: OrgFixture) => {
      const res = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: mainRequest(beneficiary.vaspDid),
      });
      assert.equal(res.status, 200, res.text);
    };

    it('sends at most the per-recipient limit to a hanging receiver, and the others go through meanwhile', async () => {
      const { receiver, originator, slow, healthy } = await setup();
      receiver.script(
        '/slow/v1/notify/received',
        ...Array.from({ length: 20 }, () => ({ status: 200, delayMs: 4000 })),
      );
      for (let i = 0; i < 12; i++) await initiate(originator, slow);
      await receiver.waitFor(
        (r) => r.to('/slow/v1/notify/received').length >= 2,
        5000,
        'the first sends to the slow one',
      );
      const started = Date.now();
      for (let i = 0; i < 10; i++) await initiate(originator, healthy);
      await receiver.waitFor(
        (r) => r.to('/healthy/v1/notify/received').length === 10,
        3000,
        'the healthy ones',
      );
      assert.ok(Date.now() - started < 3000);
      assert.equal(
        receiver.to('/slow/v1/notify/received').length,
        2,
        'two in flight at most (the limit), the rest wait',
      );
    });

    it('delivers to a healthy recipient queued behind the large backlog of a hanging one, which holds only its limit', async () => {
      const { receiver, slow, healthy } = await setup();
      // The hanging one answers only after the others are all done (within the send timeout).
      receiver.script(
        '/slow/v1/notify/ping',
        ...Array.from({ length: 10 }, () => ({ status: 200, delayMs: 9000 })),
      );
      const queue = (organizationId: string, n: number) =>
        hub().db.query(
          `INSERT INTO deliveries (id, message_id, channel, event, organization_id, payload)
           SELECT gen_random_uuid(), 'msg_fair_' || gen_random_uuid(), 'webhook', 'ping', $1::uuid,
                  jsonb_build_object('type', 'ping', 'organizationId', $1::text, 'seq', g)
             FROM generate_series(1, $2::int) AS g`,
          [organizationId, n],
        );
      // Every message of the healthy one is due after the whole backlog of the hanging one.
      await queue(slow.id, 300);
      await queue(healthy.id, 20);
      await hub().db.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
      await receiver.waitFor(
        (r) => r.to('/healthy/v1/notify/ping').length === 20,
        8000,
        "all of the healthy one's messages, before the hanging one answers anything",
      );
      assert.equal(
        receiver.to('/slow/v1/notify/ping').length,
        2,
        'the hanging one got its limit of sends, none answered yet',
      );
      const [backlog] = await hub().db.query<{ untouched: number }>(
        `SELECT count(*)::int AS untouched FROM deliveries
          WHERE organization_id = $1 AND status = 'PENDING' AND attempts = 0`,
        [slow.id],
      );
      assert.equal(backlog?.untouched, 300, 'its backlog stays in the outbox, no attempt counted');
      // Withdrawn, so that the suite's other tests do not retry it.
      await hub().db.query(
        `UPDATE deliveries SET status = 'CANCELLED' WHERE organization_id = $1 AND status = 'PENDING'`,
        [slow.id],
      );
    });

    it('pauses a receiver that failed five times in a row, and the others go through meanwhile', async () => {
      const { receiver, originator, slow, healthy } = await setup();
      receiver.script('/slow/v1/notify/received', ...Array.from({ length: 40 }, () => 503));
      for (let i = 0; i < 12; i++) await initiate(originator, slow);
      await receiver.waitFor((r) => r.to('/slow/v1/notify/received').length >= 5, 5000, 'five failures');
      await new Promise((r) => setTimeout(r, 700));
      const tried = receiver.to('/slow/v1/notify/received').length;
      assert.ok(
        tried <= 6,
        `${tried} attempts before the pause ends: its circuit stays open for the schedule's 3 s`,
      );
      for (let i = 0; i < 5; i++) await initiate(originator, healthy);
      await receiver.waitFor(
        (r) => r.to('/healthy/v1/notify/received').length === 5,
        3000,
        'the healthy ones',
      );
      await receiver.waitFor(
        (r) => r.to('/slow/v1/notify/received').length > tried,
        6000,
        'a probe once the pause is over',
      );
    });
  },
  { HUB_MAX_INFLIGHT_PER_RECIPIENT: '2', HUB_RETRY_SCHEDULE: '3s,3s,3s,3s,3s,3s,3s,3s' },
);
