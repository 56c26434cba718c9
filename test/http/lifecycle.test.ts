/**
 * Cancel, expiry and the sender's view of its delivery (SPEC §11, §17 `delivery`), through HTTP,
 * with real webhook receivers, a real SMTP server and, for expiry, two hub processes on one
 * PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, it } from 'node:test';
import { eachBackend, type OrgFixture, type TestHub } from '../harness.js';
import { eventually, Receiver, verified } from '../support/receiver.js';
import { type Json, mainRequest, notifyRequest } from '../support/requests.js';
import { SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
const receivers: Receiver[] = [];
after(async () => {
  await smtp.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function parties(hub: TestHub) {
  const receiver = await Receiver.start();
  receivers.push(receiver);
  const originator = await hub.createOrg({ travelEndpoint: `${receiver.url}/orig` });
  const beneficiary = await hub.createOrg({ travelEndpoint: `${receiver.url}/bene` });
  return { receiver, originator, beneficiary };
}

eachBackend(
  'cancel and the delivery summary',
  (hub, backend) => {
    const initiate = async (o: OrgFixture, b: OrgFixture, extra: Json = {}) => {
      const res = await hub().request('POST', '/v1/transactions/initiate', {
        key: o.apiKey,
        body: { ...mainRequest(b.vaspDid), ...extra },
      });
      assert.equal(res.status, 200, res.text);
      return res.body.transactionRef as string;
    };
    const read = async (key: string, ref: string) =>
      (await hub().request('GET', `/v1/transactions/${ref}`, { key })).body;
    const cancel = (key: string, body: Json) =>
      hub().request('POST', '/v1/transactions/cancel', { key, body });
    const rows = (ref: string) =>
      hub().db.query<{ event: string; status: string }>(
        'SELECT event, status FROM deliveries WHERE transaction_ref = $1 ORDER BY seq',
        [ref],
      );

    /** A MAIN initiation whose `received` webhook the beneficiary holds until `answer()` (200). */
    const receivedInFlight = async () => {
      const { receiver, originator, beneficiary } = await parties(hub());
      let answer!: () => void;
      receiver.script('/bene/v1/notify/received', {
        status: 200,
        until: new Promise<void>((resolve) => {
          answer = resolve;
        }),
      });
      const ref = await initiate(originator, beneficiary);
      await receiver.waitFor((r) => r.to('/bene/v1/notify/received').length === 1, 10_000, 'received');
      return { receiver, originator, ref, answer };
    };

    it('cancels a NEW transaction: its unsent message is withdrawn and never sent, no cancelled event', async () => {
      const { receiver, originator, beneficiary } = await parties(hub());
      receiver.script('/bene/v1/notify/received', 503, 503, 503, 503);
      const ref = await initiate(originator, beneficiary);
      await eventually(
        async () => (await read(originator.apiKey, ref)).delivery.state === 'retrying',
        'retrying',
      );
      const res = await cancel(originator.apiKey, { transactionRef: ref });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { transactionRef: ref, status: 'CANCELLED', protocol: 'MAIN' });
      assert.deepEqual(await rows(ref), [{ event: 'received', status: 'CANCELLED' }]);
      const sent = receiver.to('/bene/v1/notify/received').length;
      await new Promise((r) => setTimeout(r, 800));
      assert.equal(receiver.to('/bene/v1/notify/received').length, sent, 'never sent again');
      assert.equal(receiver.to('/bene/v1/notify/cancelled').length, 0, 'the beneficiary was never told');
      const t = await read(originator.apiKey, ref);
      assert.equal(t.status, 'CANCELLED');
      assert.equal(t.delivery.state, 'not-applicable', 'nothing is owed any more');
      // The evidence stays: the withdrawn message, with the attempts that failed.
      assert.equal(t.delivery.messages.length, 1);
      assert.deepEqual(
        [t.delivery.messages[0].event, t.delivery.messages[0].state, t.delivery.messages[0].lastError],
        ['received', 'withdrawn', 'http-5xx'],
      );
      assert.ok(t.delivery.messages[0].attempts >= 1);
    });

    it('tells a beneficiary that was told of it, with the reason, signed', async () => {
      const { receiver, originator, beneficiary } = await parties(hub());
      for (const state of ['RECEIVER_NOTIFIED', 'CONFIRMED']) {
        const ref = await initiate(originator, beneficiary);
        await eventually(
          async () => (await read(originator.apiKey, ref)).status === 'RECEIVER_NOTIFIED',
          'notified',
        );
        if (state === 'CONFIRMED') {
          await hub().request('POST', '/v1/transactions/confirm', {
            key: originator.apiKey,
            body: { transactionRef: ref },
          });
        }
        // Every message owed to the beneficiary counts: after confirm, confirmed-data too.
        const delivered = await eventually(async () => {
          const d = (await read(originator.apiKey, ref)).delivery;
          return d.state === 'delivered' ? d : undefined;
        }, 'every message delivered');
        assert.deepEqual(
          delivered.messages.map((m: Json) => [m.event, m.state]),
          state === 'CONFIRMED'
            ? [
                ['received', 'delivered'],
                ['confirmed-data', 'delivered'],
              ]
            : [['received', 'delivered']],
        );
        assert.ok(delivered.messages.every((m: Json) => typeof m.deliveredAt === 'string'));
        const res = await cancel(originator.apiKey, {
          transactionRef: ref,
          reason: `Order ${state} withdrawn`,
        });
        assert.equal(res.status, 200, res.text);
        await receiver.waitFor((r) => r.to('/bene/v1/notify/cancelled').some((x) => x.body.includes(ref)));
        const body = verified(
          receiver.to('/bene/v1/notify/cancelled').find((x) => x.body.includes(ref))!,
          beneficiary.webhookSecret,
        );
        assert.deepEqual(body, {
          transactionRef: ref,
          status: 'CANCELLED',
          reason: `Order ${state} withdrawn`,
        });
        const dump = await hub().db.query('SELECT t::text AS row FROM transactions t WHERE ref = $1', [ref]);
        assert.ok(!String(dump[0]!.row).includes('withdrawn'), 'the reason is sealed at rest');
        // Both parties see why; the beneficiary keeps the personal data it was given, and only that.
        assert.equal((await read(beneficiary.apiKey, ref)).cancelReason, `Order ${state} withdrawn`);
        const pii = await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: beneficiary.apiKey });
        assert.equal(pii.status, state === 'CONFIRMED' ? 200 : 403, pii.text);
      }
    });

    it('refuses a cancel by the beneficiary, after a hash was shared, and from a final state', async () => {
      const { originator, beneficiary } = await parties(hub());
      const ref = await initiate(originator, beneficiary);
      const byBeneficiary = await cancel(beneficiary.apiKey, { transactionRef: ref });
      assert.equal(byBeneficiary.status, 403);
      const stranger = await hub().createOrg();
      assert.equal((await cancel(stranger.apiKey, { transactionRef: ref })).status, 404);
      await hub().request('POST', '/v1/transactions/tx-hash', {
        key: originator.apiKey,
        body: { transactionRef: ref, txHash: '0xfeed' },
      });
      const broadcast = await cancel(originator.apiKey, { transactionRef: ref });
      assert.equal(broadcast.status, 409);
      assert.match(broadcast.body.detail, /txHash/);
      const hashedAtStart = await initiate(originator, beneficiary, {
        transactionBlockchainInfo: { destination: '0x2222', txHash: '0xbeef' },
      });
      assert.equal((await cancel(originator.apiKey, { transactionRef: hashedAtStart })).status, 409);
      const once = await initiate(originator, beneficiary);
      assert.equal((await cancel(originator.apiKey, { transactionRef: once })).status, 200);
      const twice = await cancel(originator.apiKey, { transactionRef: once });
      assert.equal(twice.status, 409);
      assert.match(twice.body.detail, /CANCELLED/);
      const hash = await hub().request('POST', '/v1/transactions/tx-hash', {
        key: originator.apiKey,
        body: { transactionRef: once, txHash: '0x1' },
      });
      assert.equal(hash.status, 409, 'a cancelled transaction takes no hash');
    });

    it('tells the beneficiary of a cancel that came while its received webhook was in flight', async () => {
      const { receiver, originator, ref, answer } = await receivedInFlight();
      // Still NEW: the beneficiary has not answered, so the cancel withdraws the webhook in flight.
      const res = await cancel(originator.apiKey, { transactionRef: ref, reason: 'Changed my mind' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        (await rows(ref)).map((r) => [r.event, r.status]),
        [['received', 'CANCELLED']],
      );
      answer();
      // It answered 2xx all the same: it was told, so it hears of the cancel, and the record says
      // what happened.
      await receiver.waitFor((r) => r.to('/bene/v1/notify/cancelled').some((x) => x.body.includes(ref)));
      const told = receiver.to('/bene/v1/notify/cancelled').find((x) => x.body.includes(ref))!;
      assert.deepEqual(JSON.parse(told.body), {
        transactionRef: ref,
        status: 'CANCELLED',
        reason: 'Changed my mind',
      });
      await eventually(async () => {
        const now = (await rows(ref)).map((r) => [r.event, r.status]);
        return (
          JSON.stringify(now) ===
          JSON.stringify([
            ['received', 'DELIVERED'],
            ['cancelled', 'DELIVERED'],
          ])
        );
      }, 'both delivered');
      assert.equal((await read(originator.apiKey, ref)).status, 'CANCELLED');
    });

    // PGlite runs one database transaction at a time, so only a server can interleave these.
    if (backend === 'postgres') {
      it('records a delivery with its transaction locked first, as a cancel takes them: no deadlock', async () => {
        const { receiver, originator, ref, answer } = await receivedInFlight();
        const lockWaits = async () =>
          (
            await hub().db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          )[0]!.n;
        // Hold the transaction's row while the beneficiary answers: the worker's recording waits
        // for it before it touches the delivery's row. (It used to update the delivery first, so a
        // cancel holding the transaction and withdrawing the delivery could meet it in a cycle.)
        let release!: () => void;
        let holding!: () => void;
        const held = new Promise<void>((resolve) => {
          holding = resolve;
        });
        const holder = hub().db.transaction(async (tx) => {
          await tx.query('SELECT 1 FROM transactions WHERE ref = $1 FOR UPDATE', [ref]);
          holding();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        });
        await held;
        answer();
        await eventually(async () => (await lockWaits()) === 1, 'the recording waits');
        const free = await hub().db.transaction((tx) =>
          tx.query('SELECT id FROM deliveries WHERE transaction_ref = $1 FOR UPDATE NOWAIT', [ref]),
        );
        assert.equal(free.length, 1, 'the waiting recording holds no delivery row');
        // A cancel queues behind the recording: the beneficiary was told, so it hears of the cancel.
        const cancelling = cancel(originator.apiKey, { transactionRef: ref });
        await eventually(async () => (await lockWaits()) === 2, 'the cancel waits');
        release();
        await holder;
        const res = await cancelling;
        assert.equal(res.status, 200, res.text);
        const t = await read(originator.apiKey, ref);
        assert.equal(t.status, 'CANCELLED');
        await receiver.waitFor((r) => r.to('/bene/v1/notify/cancelled').some((x) => x.body.includes(ref)));
        assert.deepEqual(
          (await rows(ref)).map((r) => r.event),
          ['received', 'cancelled'],
        );
        assert.equal((await rows(ref))[0]!.status, 'DELIVERED');
      });
    }

    it('lets exactly one of twenty concurrent cancels, declines and confirms move a transaction', async () => {
      const { originator, beneficiary } = await parties(hub());
      const ref = await initiate(originator, beneficiary);
      await eventually(
        async () => (await read(originator.apiKey, ref)).status === 'RECEIVER_NOTIFIED',
        'notified',
      );
      await hub().request('POST', '/v1/transactions/confirm', {
        key: originator.apiKey,
        body: { transactionRef: ref },
      });
      const requests = Array.from({ length: 20 }, (_, i) =>
        i % 3 === 0
          ? cancel(originator.apiKey, { transactionRef: ref })
          : i % 3 === 1
            ? hub().request('POST', '/v1/transactions/confirm', {
                key: originator.apiKey,
                body: { transactionRef: ref },
              })
            : hub().request('POST', '/v1/transactions/decline', {
                key: beneficiary.apiKey,
                body: { transactionRef: ref, reason: { category: 'USER_REQUEST', description: 'no' } },
              }),
      );
      const answers = await Promise.all(requests);
      const statuses = answers.map((a) => a.status);
      assert.ok(
        statuses.every((s) => s === 200 || s === 409),
        statuses.join(','),
      );
      assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
      const t = await read(originator.apiKey, ref);
      assert.ok(['CANCELLED', 'DECLINED'].includes(t.status), t.status);
      assert.deepEqual(
        t.history.map((h: Json) => h.status),
        ['NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED', t.status],
      );
    });

    it('shows the originator its received webhook pending, retrying, failed, redelivered and delivered', async () => {
      const { receiver, originator, beneficiary } = await parties(hub());
      receiver.script('/bene/v1/notify/received', 503, 503, 503, 503);
      const ref = await initiate(originator, beneficiary);
      const retrying = await eventually(async () => {
        const d = (await read(originator.apiKey, ref)).delivery;
        return d.state === 'retrying' ? d : undefined;
      }, 'retrying');
      assert.equal(retrying.lastError, 'http-5xx');
      assert.ok(retrying.attempts >= 1);
      assert.ok(retrying.nextAttemptAt);
      const failing = await hub().request('GET', '/v1/transactions?role=originator&delivery=failing', {
        key: originator.apiKey,
      });
      assert.ok(failing.body.transactions.some((t: Json) => t.transactionRef === ref));
      const failed = await eventually(async () => {
        const d = (await read(originator.apiKey, ref)).delivery;
        return d.state === 'failed' ? d : undefined;
      }, 'failed');
      assert.deepEqual(failed, {
        state: 'failed',
        event: 'received',
        attempts: 4,
        lastError: 'http-5xx',
        nextAttemptAt: null,
        messages: [
          {
            event: 'received',
            state: 'failed',
            attempts: 4,
            lastError: 'http-5xx',
            nextAttemptAt: null,
            deliveredAt: null,
          },
        ],
      });
      assert.equal(
        (await read(beneficiary.apiKey, ref)).delivery.state,
        'not-applicable',
        'nothing owed to the originator',
      );
      const owed = (
        await hub().request('GET', `/v1/webhooks/deliveries?transactionRef=${ref}`, {
          key: beneficiary.apiKey,
        })
      ).body.deliveries[0];
      assert.equal(
        (
          await hub().request('POST', `/v1/webhooks/deliveries/${owed.id}/redeliver`, {
            key: beneficiary.apiKey,
          })
        ).status,
        202,
      );
      await eventually(
        async () => (await read(originator.apiKey, ref)).delivery.state === 'delivered',
        'delivered',
      );
      const clear = await hub().request('GET', '/v1/transactions?role=originator&delivery=failing', {
        key: originator.apiKey,
      });
      assert.ok(!clear.body.transactions.some((t: Json) => t.transactionRef === ref));
      const t = await read(originator.apiKey, ref);
      assert.ok(!JSON.stringify(t.delivery).includes(receiver.url), 'never the endpoint');
    });

    it('tells the originator when confirmed-data does not get through, though received did (every message counts)', async () => {
      const { receiver, originator, beneficiary } = await parties(hub());
      const ref = await initiate(originator, beneficiary);
      await eventually(
        async () => (await read(originator.apiKey, ref)).status === 'RECEIVER_NOTIFIED',
        'notified',
      );
      assert.equal((await read(originator.apiKey, ref)).delivery.state, 'delivered');
      // The beneficiary's endpoint goes down; the originator confirms.
      receiver.script('/bene/v1/notify/confirmed-data', 503, 503, 503, 503);
      const confirmed = await hub().request('POST', '/v1/transactions/confirm', {
        key: originator.apiKey,
        body: { transactionRef: ref },
      });
      assert.equal(confirmed.status, 200, confirmed.text);
      const failed = await eventually(async () => {
        const d = (await read(originator.apiKey, ref)).delivery;
        return d.state === 'failed' ? d : undefined;
      }, 'confirmed-data failed');
      assert.equal(failed.event, 'confirmed-data');
      assert.equal(failed.lastError, 'http-5xx');
      assert.deepEqual(
        failed.messages.map((m: Json) => [m.event, m.state]),
        [
          ['received', 'delivered'],
          ['confirmed-data', 'failed'],
        ],
      );
      const failing = await hub().request('GET', '/v1/transactions?role=originator&delivery=failing', {
        key: originator.apiKey,
      });
      const listed = failing.body.transactions.find((t: Json) => t.transactionRef === ref);
      assert.ok(listed, 'in the failing list');
      assert.equal(listed.delivery.event, 'confirmed-data');
      // Redelivered once the endpoint is back: all is well again.
      const owed = (
        await hub().request('GET', `/v1/webhooks/deliveries?transactionRef=${ref}&status=FAILED`, {
          key: beneficiary.apiKey,
        })
      ).body.deliveries[0];
      assert.equal(owed.event, 'confirmed-data');
      const again = await hub().request('POST', `/v1/webhooks/deliveries/${owed.id}/redeliver`, {
        key: beneficiary.apiKey,
      });
      assert.equal(again.status, 202, again.text);
      await eventually(
        async () => (await read(originator.apiKey, ref)).delivery.state === 'delivered',
        'delivered again',
      );
    });

    it('shows the originator whether the NOTIFY e-mail went out, through an SMTP server that refuses first', async () => {
      const originator = await hub().createOrg({ organizationType: 'verified' });
      smtp.rejectNext(1);
      const body = notifyRequest(randomUUID());
      const ref = (await hub().request('POST', '/v1/transactions/initiate', { key: originator.apiKey, body }))
        .body.transactionRef;
      const retrying = await eventually(async () => {
        const d = (await read(originator.apiKey, ref)).delivery;
        return d.state === 'retrying' ? d : undefined;
      }, 'retrying');
      assert.equal(retrying.lastError, 'smtp');
      await eventually(
        async () => (await read(originator.apiKey, ref)).delivery.state === 'delivered',
        'delivered',
      );
    });
  },
  { SMTP_URL: smtp.url, HUB_RETRY_SCHEDULE: '400ms,400ms,400ms' },
);

eachBackend(
  'expiry',
  (hub, backend) => {
    it('expires a transaction with no progress once, telling the originator (and a beneficiary that was told)', async () => {
      const { receiver, originator, beneficiary } = await parties(hub());
      receiver.script('/bene/v1/notify/received', ...Array.from({ length: 50 }, () => 503));
      const stuck = (
        await hub().request('POST', '/v1/transactions/initiate', {
          key: originator.apiKey,
          body: mainRequest(beneficiary.vaspDid),
        })
      ).body.transactionRef;
      const twin = backend === 'postgres' ? await hub().twin() : undefined;
      try {
        if (twin) await twin.hub.background.start();
        await eventually(
          async () =>
            (await hub().request('GET', `/v1/transactions/${stuck}`, { key: originator.apiKey })).body
              .status === 'EXPIRED',
          'EXPIRED',
          15_000,
        );
        await receiver.waitFor((r) => r.to('/orig/v1/notify/expired').some((x) => x.body.includes(stuck)));
        await new Promise((r) => setTimeout(r, 2500)); // another sweep of both processes
        const history = await hub().db.query(
          `SELECT count(*)::int AS n FROM transaction_history WHERE transaction_ref = $1 AND status = 'EXPIRED'`,
          [stuck],
        );
        assert.equal(history[0]!.n, 1, 'expired once');
        const expired = await hub().db.query<{ organization_id: string }>(
          `SELECT organization_id FROM deliveries WHERE transaction_ref = $1 AND event = 'expired'`,
          [stuck],
        );
        assert.deepEqual(
          expired.map((e) => e.organization_id),
          [originator.id],
          'one expired message, to the originator only: the beneficiary never got received',
        );
        const withdrawn = await hub().db.query(
          `SELECT status FROM deliveries WHERE transaction_ref = $1 AND event = 'received'`,
          [stuck],
        );
        assert.equal(withdrawn[0]!.status, 'CANCELLED');
      } finally {
        await twin?.stop();
      }
    });

    it('expires many at once across processes, each once with one expired message', async () => {
      const { originator } = await parties(hub());
      const beneficiary = await hub().createOrg({ travelEndpoint: 'http://127.0.0.1:1' });
      const refs: string[] = [];
      for (let i = 0; i < 12; i++) {
        refs.push(
          (
            await hub().request('POST', '/v1/transactions/initiate', {
              key: originator.apiKey,
              body: mainRequest(beneficiary.vaspDid),
            })
          ).body.transactionRef,
        );
      }
      const twin = backend === 'postgres' ? await hub().twin() : undefined;
      try {
        if (twin) await twin.hub.background.start();
        await eventually(
          async () => {
            const r = await hub().db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM transactions WHERE ref = ANY($1::uuid[]) AND status = 'EXPIRED'`,
              [refs],
            );
            return r[0]!.n === refs.length;
          },
          'all expired',
          20_000,
        );
        await new Promise((r) => setTimeout(r, 2500));
        const counts = await hub().db.query<{ ref: string; h: number; m: number }>(
          `SELECT t.ref::text AS ref,
                  (SELECT count(*)::int FROM transaction_history h WHERE h.transaction_ref = t.ref AND h.status = 'EXPIRED') AS h,
                  (SELECT count(*)::int FROM deliveries d WHERE d.transaction_ref = t.ref AND d.event = 'expired') AS m
             FROM transactions t WHERE t.ref = ANY($1::uuid[])`,
          [refs],
        );
        assert.deepEqual(
          counts.map((c) => [c.h, c.m]),
          refs.map(() => [1, 1]),
        );
      } finally {
        await twin?.stop();
      }
    });
  },
  { HUB_PENDING_EXPIRY: '2s', HUB_RETRY_SCHEDULE: '500ms,500ms,500ms,500ms,500ms,500ms' },
);
