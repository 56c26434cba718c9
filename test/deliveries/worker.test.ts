import assert from 'node:assert/strict';
import { after, it, type TestContext } from 'node:test';
import { Registry } from 'prom-client';
import { LinkTokens } from '../../src/claims/tokens.js';
import type { Database, Queryable } from '../../src/db/database.js';
import type { OutboxMessage } from '../../src/deliveries/events.js';
import type { Delivered } from '../../src/deliveries/hooks.js';
import { createDeliveries, type DeliveryHooks } from '../../src/deliveries/index.js';
import { enqueue, type LocalWorker, OUTBOX_CHANNEL, Outbox } from '../../src/deliveries/outbox.js';
import { ResultRecorder } from '../../src/deliveries/recorder.js';
import * as store from '../../src/deliveries/store.js';
import type { LeasedMessage } from '../../src/deliveries/types.js';
import type { InitiateRequest } from '../../src/transactions/schemas.js';
import { TransactionService } from '../../src/transactions/service.js';
import { eachBackend, type OrgFixture, type TestHub } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { mainRequest } from '../support/requests.js';

const silent = process.env.DEBUG_WORKER
  ? { info: console.error, warn: console.error, error: console.error, debug: console.error }
  : { info() {}, warn() {}, error() {}, debug() {} };
const receivers: Receiver[] = [];
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

type Outcome = OutboxMessage;

/** One row: see store.markDeliveredMany. */
async function markDelivered(
  q: Queryable,
  d: LeasedMessage,
  attempt: { statusCode: number; latencyMs: number },
) {
  return (await store.markDeliveredMany(q, [{ d, attempt: { ...attempt, error: null } }])).length === 1;
}

/** One row: see store.markFailedMany. */
async function markAttemptFailed(
  q: Queryable,
  d: LeasedMessage,
  attempt: { statusCode: number | null; latencyMs: number; error: string },
  retryInMs: number | null,
) {
  return (await store.markFailedMany(q, [{ d, attempt, retryInMs }])).get(d.id) ?? null;
}

/**
 * Hooks that record what the worker reports; `failFor` makes the next n calls for a transaction
 * throw. (A worker takes every due row of the shared database, other tests' leftovers included.)
 */
function fakeHooks() {
  const outcomes: Outcome[] = [];
  const hooks: DeliveryHooks & {
    outcomes: Outcome[];
    failFor: Map<string, number>;
    of(refs: string[]): Outcome[];
  } = {
    outcomes,
    failFor: new Map(),
    of: (refs) => outcomes.filter((o) => refs.includes(o.transactionRef ?? '')),
    async readPii() {
      return { originator: { who: 'o' }, beneficiary: { who: 'b' } };
    },
    async readReason() {
      return undefined;
    },
    async deliveryOutcomes() {
      return async (delivered: readonly Delivered[]) => {
        const ds = delivered.map((d) => d.message);
        for (const d of ds) {
          const failures = hooks.failFor.get(d.transactionRef ?? '') ?? 0;
          if (failures > 0) {
            hooks.failFor.set(d.transactionRef!, failures - 1);
            throw new Error('transactions domain unavailable');
          }
        }
        outcomes.push(...ds);
      };
    },
  };
  return hooks;
}

function engine(
  hub: TestHub,
  hooks: DeliveryHooks,
  worker: Parameters<typeof createDeliveries>[0]['worker'] = {},
  db: Database = hub.db,
) {
  return createDeliveries({
    config: hub.config,
    db,
    directory: hub.hub.directory,
    hooks,
    registry: new Registry(),
    log: silent,
    links: () => new LinkTokens(hub.masterKey).links(hub.url),
    worker,
  });
}

eachBackend(
  'delivery worker',
  (hub, backend) => {
    /** A worker of its own, closed when the test ends. */
    const start = async (t: TestContext, hooks: DeliveryHooks, tuning = {}) => {
      const e = engine(hub(), hooks, tuning);
      t.after(() => e.close());
      await e.worker.start();
      return e;
    };
    async function setup() {
      const receiver = await Receiver.start();
      receivers.push(receiver);
      const originator = await hub().createOrg({ travelEndpoint: `${receiver.url}/o` });
      const beneficiary = await hub().createOrg({ travelEndpoint: `${receiver.url}/b` });
      return { receiver, originator, beneficiary };
    }
    const initiate = async (originator: OrgFixture, beneficiary: OrgFixture) => {
      const res = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: mainRequest(beneficiary.vaspDid),
      });
      assert.equal(res.status, 200, res.text);
      return res.body.transactionRef as string;
    };
    const opts = { limit: 100, leaseMs: 30_000, channels: ['webhook'] };
    /** Claims due rows like a worker; gives back at once those of other tests' transactions. */
    const claimOf = async (...refs: string[]) => {
      const got = await store.claimDue(hub().db, opts);
      const mine = got.filter((d) => refs.includes(d.message.transactionRef ?? ''));
      await store.releaseLeases(
        hub().db,
        got.filter((d) => !mine.includes(d)),
      );
      return mine;
    };
    /** What a redelivery does: the transaction's lock, then the requeue. */
    const requeue = (id: string) =>
      hub().db.transaction(async (tx) => {
        await store.lockTransactionOf(tx, id);
        return store.requeue(tx, id);
      });
    const deliveryRows = (ref: string) =>
      hub().db.query<{ event: string; status: string; attempts: number }>(
        'SELECT event, status, attempts FROM deliveries WHERE transaction_ref = $1 ORDER BY seq',
        [ref],
      );

    /**
     * A MAIN initiation whose `received` is claimed (PENDING, leased); `fail` uses up its retries.
     * `txHash(n)` is a message of the same stream (transaction and recipient).
     */
    const claimedReceived = async () => {
      const { originator, beneficiary } = await setup();
      const ref = await initiate(originator, beneficiary);
      const [received] = await claimOf(ref);
      assert.equal(received?.message.event, 'received');
      const fail = () =>
        markAttemptFailed(hub().db, received!, { statusCode: 500, latencyMs: 1, error: 'HTTP 500' }, null);
      const txHash = (n: number): OutboxMessage => ({
        channel: 'webhook',
        event: 'tx-hash',
        organizationId: beneficiary.id,
        transactionRef: ref,
        payload: { transactionRef: ref, txHash: `0x${n}` },
      });
      return { ref, received: received!, fail, txHash };
    };
    /** Claims the `received` of `ref` and delivers it; returns what a claim then gets (released). */
    const deliverReceivedThenClaim = async (ref: string, message?: string) => {
      const first = await claimOf(ref);
      assert.deepEqual(
        first.map((d) => d.message.event),
        ['received'],
        message,
      );
      await hub().db.transaction((tx) => markDelivered(tx, first[0]!, { statusCode: 200, latencyMs: 1 }));
      const next = await claimOf(ref);
      await store.releaseLeases(hub().db, next);
      return next;
    };

    it('claims a later message of a transaction only once the earlier one to that recipient is done', async () => {
      const { originator, beneficiary } = await setup();
      const ref = await initiate(originator, beneficiary);
      const other = await initiate(originator, beneficiary);
      await hub().db.transaction((tx) =>
        enqueue(tx, [
          {
            channel: 'webhook',
            event: 'tx-hash',
            organizationId: beneficiary.id,
            transactionRef: ref,
            payload: { transactionRef: ref, txHash: '0x1' },
          },
          {
            channel: 'webhook',
            event: 'declined',
            organizationId: originator.id,
            transactionRef: ref,
            payload: { transactionRef: ref },
          } as OutboxMessage,
        ]),
      );
      const held: LeasedMessage[] = [];
      const claim = async () => {
        const got = await claimOf(ref, other);
        held.push(...got);
        return got;
      };
      const first = await claim();
      assert.deepEqual(
        first.map((d) => [d.message.transactionRef, d.message.event]).sort(),
        [
          [other, 'received'],
          [ref, 'declined'], // another recipient: not held up
          [ref, 'received'],
        ].sort(),
      );
      assert.equal((await claim()).filter((d) => d.message.transactionRef === ref).length, 0);
      const received = first.find((d) => d.message.transactionRef === ref && d.message.event === 'received')!;
      assert.equal(
        await markAttemptFailed(hub().db, received, { statusCode: 500, latencyMs: 1, error: 'HTTP 500' }, 0),
        'PENDING',
      );
      await new Promise((r) => setTimeout(r, 5));
      const retry = (await claim()).filter((d) => d.message.transactionRef === ref);
      assert.deepEqual(
        retry.map((d) => d.message.event),
        ['received'],
        'a retrying earlier message still holds the later one',
      );
      let wakeUps = 0;
      const unlisten = await hub().db.listen(OUTBOX_CHANNEL, () => wakeUps++);
      try {
        await hub().db.transaction((tx) => markDelivered(tx, retry[0]!, { statusCode: 200, latencyMs: 1 }));
        await eventually(() => wakeUps > 0, 'other workers woken for the waiting message', 2000);
      } finally {
        await unlisten();
      }
      const next = (await claim()).filter((d) => d.message.transactionRef === ref);
      assert.deepEqual(
        next.map((d) => d.message.event),
        ['tx-hash'],
      );
      // Give back every lease this test took (the stale ones are simply not held any more).
      await store.releaseLeases(hub().db, held);
    });

    it('holds later messages behind a FAILED one until it is redelivered, then sends them in order', async () => {
      const { ref, received, fail, txHash } = await claimedReceived();
      await hub().db.transaction((tx) => enqueue(tx, [txHash(1)]));
      assert.equal(await fail(), 'FAILED');
      // Written while the received was failing, and written after it failed: both wait.
      await hub().db.transaction((tx) => enqueue(tx, [txHash(2)]));
      assert.deepEqual(
        (await deliveryRows(ref)).map((r) => [r.event, r.status]),
        [
          ['received', 'FAILED'],
          ['tx-hash', 'HELD'],
          ['tx-hash', 'HELD'],
        ],
      );
      assert.deepEqual(await claimOf(ref), [], 'nothing overtakes the FAILED message');

      await requeue(received.id);
      assert.deepEqual(
        (await deliveryRows(ref)).map((r) => r.status),
        ['PENDING', 'PENDING', 'PENDING'],
      );
      const next = await deliverReceivedThenClaim(ref, 'the redelivered message goes first');
      assert.deepEqual(
        next.map((d) => (d.message.payload as { txHash: string }).txHash),
        ['0x1'],
      );
    });

    it('releases a message queued behind a FAILED one while that one is being redelivered', async () => {
      const { ref, received, fail, txHash } = await claimedReceived();
      assert.equal(await fail(), 'FAILED');
      let queued!: () => void;
      const isQueued = new Promise<void>((resolve) => {
        queued = resolve;
      });
      let finish!: () => void;
      const finishing = new Promise<void>((resolve) => {
        finish = resolve;
      });
      // A command (as tx-hash does): the transaction's row locked, a message queued, not yet committed.
      const command = hub().db.transaction(async (tx) => {
        await tx.query('SELECT ref FROM transactions WHERE ref = $1 FOR UPDATE', [ref]);
        await enqueue(tx, [txHash(1)]);
        queued();
        await finishing;
      });
      await isQueued;
      const redelivery = requeue(received.id);
      await new Promise((resolve) => setTimeout(resolve, 200));
      finish();
      await Promise.all([command, redelivery]);
      const next = await deliverReceivedThenClaim(ref);
      assert.deepEqual(
        next.map((d) => d.message.event),
        ['tx-hash'],
        'the tx-hash is not left HELD',
      );
    });

    it('keeps a redelivered message HELD while an earlier one of its stream is still FAILED', async () => {
      // Two FAILED in one stream: data from before migration 0006, when a FAILED one held nothing.
      const { ref, received, fail, txHash } = await claimedReceived();
      assert.equal(await fail(), 'FAILED');
      const [hashId] = await hub().db.transaction((tx) => enqueue(tx, [txHash(1)]));
      await hub().db.query(`UPDATE deliveries SET status = 'FAILED' WHERE id = $1`, [hashId]);

      const later = await requeue(hashId!);
      assert.equal(later.status, 'HELD', 'it waits behind the FAILED received, outside the due queue');
      assert.deepEqual(await claimOf(ref), []);
      await requeue(received.id);
      assert.deepEqual(
        (await deliveryRows(ref)).map((r) => r.status),
        ['PENDING', 'PENDING'],
      );
      const next = await deliverReceivedThenClaim(ref);
      assert.deepEqual(
        next.map((d) => d.message.event),
        ['tx-hash'],
      );
    });

    it('leaves no loop and no LISTEN behind when stopped while it is still starting', async () => {
      let listening = 0;
      const base = hub().db;
      const db: Database = Object.assign(Object.create(base) as Database, {
        listen: async (channel: string, onNotify: () => void) => {
          const unlisten = await base.listen(channel, onNotify);
          listening++;
          return async () => {
            listening--;
            await unlisten();
          };
        },
      });
      const e = engine(hub(), fakeHooks(), {}, db);
      await Promise.all([e.worker.start(), e.worker.stop()]);
      assert.equal(e.worker.isRunning, false);
      assert.equal(listening, 0);
      await e.worker.start();
      assert.equal(
        [e.worker.isRunning, listening].join(),
        'false,0',
        'a stopped worker does not start again',
      );
      await e.close();
    });

    it('ignores the result of a worker whose lease ran out and was taken over', async () => {
      const { originator, beneficiary } = await setup();
      const ref = await initiate(originator, beneficiary);
      const mine = await claimOf(ref);
      assert.equal(mine.length, 1);
      await hub().db.query(
        `UPDATE deliveries SET next_attempt_at = now() - interval '1 second' WHERE id = $1`,
        [mine[0]!.id],
      );
      const theirs = await claimOf(ref);
      assert.equal(theirs.length, 1);
      assert.notEqual(theirs[0]!.lease, mine[0]!.lease);
      const stale = await hub().db.transaction((tx) =>
        markDelivered(tx, mine[0]!, { statusCode: 200, latencyMs: 1 }),
      );
      assert.equal(stale, false);
      assert.deepEqual(await deliveryRows(ref), [{ event: 'received', status: 'PENDING', attempts: 0 }]);
      assert.equal(
        await markAttemptFailed(hub().db, theirs[0]!, { statusCode: 500, latencyMs: 1, error: 'x' }, null),
        'FAILED',
      );
      const attempts = await hub().db.query(
        'SELECT count(*)::int AS n FROM delivery_attempts WHERE delivery_id = $1',
        [mine[0]!.id],
      );
      assert.equal(attempts[0]!.n, 2, 'both attempts are in the log');
    });

    it('counts in its metrics only the results whose lease still held', async () => {
      const { originator, beneficiary } = await setup();
      const refs = [await initiate(originator, beneficiary), await initiate(originator, beneficiary)];
      const claimed = await claimOf(...refs);
      assert.equal(claimed.length, 2);
      // Both leases run out and another worker takes both over: these results come too late.
      await hub().db.query(
        `UPDATE deliveries SET next_attempt_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])`,
        [claimed.map((d) => d.id)],
      );
      const theirs = await claimOf(...refs);
      assert.equal(theirs.length, 2);
      const counted: string[] = [];
      const recorder = new ResultRecorder({
        db: hub().db,
        hooks: fakeHooks(),
        metrics: { attempt: ({ outcome }) => counted.push(outcome) },
        log: silent,
        retrySchedule: [100],
      });
      await Promise.all([
        recorder.record(claimed[0]!, { ok: true, statusCode: 200, latencyMs: 1, error: null }),
        recorder.record(claimed[1]!, { ok: false, statusCode: 500, latencyMs: 1, error: 'HTTP 500' }),
      ]);
      assert.deepEqual(counted, []);
      const attempts = await hub().db.query(
        'SELECT count(*)::int AS n FROM delivery_attempts WHERE delivery_id = ANY($1::uuid[])',
        [claimed.map((d) => d.id)],
      );
      assert.equal(attempts[0]!.n, 2, 'the attempts are in the log');
      await store.releaseLeases(hub().db, theirs); // later tests count leased rows
    });

    it('records a success whose consequences fail as a failed attempt and sends it again', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      const hooks = fakeHooks();
      const ref = await initiate(originator, beneficiary);
      // Fails with its batch, then alone: recorded as a failed attempt, sent again.
      hooks.failFor.set(ref, 2);
      const e = await start(t, hooks);
      await eventually(async () => (await deliveryRows(ref))[0]?.status === 'DELIVERED', 'DELIVERED');
      await e.close();
      assert.deepEqual(await deliveryRows(ref), [{ event: 'received', status: 'DELIVERED', attempts: 2 }]);
      const got = receiver.to('/b/v1/notify/received');
      assert.equal(got.length, 2);
      assert.equal(got[0]!.headers['webhook-id'], got[1]!.headers['webhook-id']);
      assert.deepEqual(
        hooks.of([ref]).map(({ event, channel, transactionRef }) => ({ event, channel, transactionRef })),
        [{ event: 'received', channel: 'webhook', transactionRef: ref }],
      );
    });

    it('never gives up on a message the receiver took because the hub could not record it', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      const hooks = fakeHooks();
      const ref = await initiate(originator, beneficiary);
      // On its last attempt of the schedule (100ms ×3 in these tests: four in all).
      await hub().db.query('UPDATE deliveries SET attempts = 3 WHERE transaction_ref = $1', [ref]);
      hooks.failFor.set(ref, 2);
      const e = await start(t, hooks);
      await eventually(async () => (await deliveryRows(ref))[0]?.status === 'DELIVERED', 'DELIVERED');
      await e.close();
      assert.deepEqual(await deliveryRows(ref), [{ event: 'received', status: 'DELIVERED', attempts: 5 }]);
      assert.equal(receiver.to('/b/v1/notify/received').length, 2);
      assert.deepEqual(
        hooks.of([ref]).map(({ event, channel, transactionRef }) => ({ event, channel, transactionRef })),
        [{ event: 'received', channel: 'webhook', transactionRef: ref }],
      );
    });

    it('records results that finish within a few milliseconds of each other in one transaction', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      const hooks = fakeHooks();
      const refs: string[] = [];
      for (let i = 0; i < 40; i++) refs.push(await initiate(originator, beneficiary));
      // Answers spread over ~15 ms: each result would otherwise be recorded nearly on its own.
      receiver.script(
        '/b/v1/notify/received',
        ...refs.map((_, i) => ({ status: 200, delayMs: Math.floor((i * 15) / refs.length) })),
      );
      await start(t, hooks);
      await eventually(async () => hooks.of(refs).length === refs.length, 'all outcomes recorded');
      const rows = await hub().db.query<{ n: number }>(
        `SELECT count(DISTINCT xmin::text)::int AS n FROM deliveries
          WHERE transaction_ref = ANY($1::uuid[]) AND status = 'DELIVERED'`,
        [refs],
      );
      assert.ok(rows[0]!.n <= 6, `${refs.length} results recorded by ${rows[0]!.n} transactions`);
    });

    it('shares the outbox between workers without sending anything twice', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      const hooks = fakeHooks();
      const refs: string[] = [];
      for (let i = 0; i < 60; i++) refs.push(await initiate(originator, beneficiary));
      const engines = await Promise.all([
        start(t, hooks, { batchSize: 5, concurrency: 8 }),
        start(t, hooks, { batchSize: 5, concurrency: 8 }),
        start(t, hooks, { batchSize: 5, concurrency: 8 }),
      ]);
      await receiver.waitFor((r) => r.to('/b/v1/notify/received').length >= 60, 20_000, '60 deliveries');
      await eventually(async () => hooks.of(refs).length === 60, 'all outcomes recorded');
      await Promise.all(engines.map((e) => e.close()));
      const ids = receiver.to('/b/v1/notify/received').map((r) => r.headers['webhook-id']);
      assert.equal(ids.length, 60);
      assert.equal(new Set(ids).size, 60, 'no message sent twice');
      assert.deepEqual(
        hooks
          .of(refs)
          .map((o) => o.transactionRef)
          .sort(),
        [...refs].sort(),
      );
    });

    it('finishes sends in flight when stopped, and leaves nothing leased', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      receiver.script('/b/v1/notify/received', { status: 200, delayMs: 400 });
      const hooks = fakeHooks();
      const e = await start(t, hooks);
      const ref = await initiate(originator, beneficiary);
      await receiver.waitFor((r) => r.to('/b/v1/notify/received').length === 1);
      const t0 = Date.now();
      await e.worker.stop();
      assert.ok(Date.now() - t0 < 5000);
      assert.deepEqual(await deliveryRows(ref), [{ event: 'received', status: 'DELIVERED', attempts: 1 }]);
      const queued = await initiate(originator, beneficiary);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        await deliveryRows(queued),
        [{ event: 'received', status: 'PENDING', attempts: 0 }],
        'a stopped worker claims nothing',
      );
      const leased = await hub().db.query(
        `SELECT count(*)::int AS n FROM deliveries WHERE status = 'PENDING' AND next_attempt_at > now() + interval '5 seconds'`,
      );
      assert.equal(leased[0]!.n, 0);
    });

    it('ends a send still unanswered when its stop timeout runs out, and records it to retry', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      receiver.script('/b/v1/notify/received', { status: 200, delayMs: 4000 });
      const ref = await initiate(originator, beneficiary);
      // Its last attempt of the schedule (100ms ×3 in these tests): the cut-off is the hub's
      // doing, so it must not make the delivery FAILED.
      await hub().db.query('UPDATE deliveries SET attempts = 3 WHERE transaction_ref = $1', [ref]);
      const e = await start(t, fakeHooks(), { stopTimeoutMs: 300 });
      await receiver.waitFor((r) => r.to('/b/v1/notify/received').some((x) => x.body.includes(ref)));
      const t0 = Date.now();
      // What `serve` does on SIGTERM, after which it closes the database.
      await e.close();
      assert.ok(Date.now() - t0 < 3000, `closed in ${Date.now() - t0} ms, without waiting for the answer`);
      const [row] = await hub().db.query<{ status: string; attempts: number; last_error: string }>(
        'SELECT status, attempts, last_error FROM deliveries WHERE transaction_ref = $1',
        [ref],
      );
      assert.deepEqual(row, {
        status: 'PENDING',
        attempts: 4,
        last_error: 'hub shut down before the answer came',
      });
    });

    it('gives back a claimed message it has not sent yet when stopped', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      const ref = await initiate(originator, beneficiary);
      // confirmed-data needs the personal data first; make reading it slow.
      let reading: () => void = () => {};
      const reached = new Promise<void>((resolve) => {
        reading = resolve;
      });
      const hooks = fakeHooks();
      hooks.readPii = async () => {
        reading();
        await new Promise((r) => setTimeout(r, 300));
        return { originator: {}, beneficiary: {} };
      };
      await hub().db.transaction((tx) =>
        enqueue(tx, [
          {
            channel: 'webhook',
            event: 'confirmed-data',
            organizationId: originator.id,
            transactionRef: ref,
            payload: { transactionRef: ref },
          } as OutboxMessage,
        ]),
      );
      const e = await start(t, hooks);
      await reached;
      await e.worker.stop();
      const [row] = await hub().db.query<{ status: string; attempts: number; due: boolean }>(
        `SELECT status, attempts, next_attempt_at <= now() AS due FROM deliveries
          WHERE transaction_ref = $1 AND event = 'confirmed-data'`,
        [ref],
      );
      assert.deepEqual(row, { status: 'PENDING', attempts: 0, due: true });
      assert.equal(receiver.to('/o/v1/notify/confirmed-data').length, 0);
    });

    it('wakes on new work at once instead of waiting for its poll', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      await start(t, fakeHooks(), { pollMs: 30_000 });
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      await initiate(originator, beneficiary);
      await receiver.waitFor((r) => r.to('/b/v1/notify/received').length === 1, 5000);
      assert.ok(Date.now() - t0 < 2000, `delivered after ${Date.now() - t0} ms`);
    });

    it('vacuums the outbox after a number of recorded outcomes', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      const vacuums = async () =>
        Number(
          (
            await hub().db.query<{ n: number | string }>(
              "SELECT vacuum_count AS n FROM pg_stat_user_tables WHERE relname = 'deliveries'",
            )
          )[0]?.n ?? 0,
        );
      const before = await vacuums();
      await start(t, fakeHooks(), { pollMs: 100, vacuumAfterRows: 3 });
      for (let i = 0; i < 4; i++) await initiate(originator, beneficiary);
      await receiver.waitFor((r) => r.to('/b/v1/notify/received').length >= 4, 5000);
      await eventually(async () => (await vacuums()) > before, 'a VACUUM of deliveries');
    });

    it('does not vacuum for the first claim after start, however slow, but does for a later slow one', async (t) => {
      // Every claim takes 25 ms, above the worker's threshold for a slow claim.
      const real = hub().db;
      let claims = 0;
      let vacuums = 0;
      const slowClaims: Database = {
        ...real,
        async query(sql, params) {
          if (sql.includes('FOR UPDATE OF d SKIP LOCKED')) {
            claims++;
            await new Promise((r) => setTimeout(r, 25));
          }
          if (sql.startsWith('VACUUM')) vacuums++;
          return real.query(sql, params);
        },
      };
      const e = engine(hub(), fakeHooks(), { pollMs: 50 }, slowClaims);
      t.after(() => e.close());
      await e.worker.start();
      await eventually(async () => claims >= 2, 'a second claim');
      assert.equal(vacuums, 0, 'the first claim started a vacuum');
      await eventually(async () => vacuums === 1, 'a vacuum after the second slow claim');
    });

    it('drains a backlog to one recipient past its in-flight limit without giving rows back', async (t) => {
      const { receiver, beneficiary } = await setup();
      let claims = 0;
      let releases = 0;
      const counting: Database = {
        ...hub().db,
        query(sql, params) {
          if (sql.includes('SKIP LOCKED')) claims++;
          if (sql.includes('SET next_attempt_at = clock_timestamp()')) releases++;
          return hub().db.query(sql, params);
        },
      };
      await hub().db.query(
        `INSERT INTO deliveries (id, message_id, channel, event, organization_id, payload)
         SELECT gen_random_uuid(), 'msg_drain_' || gen_random_uuid(), 'webhook', 'ping', $1::uuid,
                jsonb_build_object('type', 'ping', 'organizationId', $1::text, 'seq', g)
           FROM generate_series(1, 600) AS g`,
        [beneficiary.id],
      );
      const e = engine(hub(), fakeHooks(), {}, counting);
      t.after(() => e.close());
      await e.worker.start();
      await receiver.waitFor((r) => r.to('/b/v1/notify/ping').length >= 600, 20_000, '600 pings');
      const ids = receiver.to('/b/v1/notify/ping').map((r) => r.headers['webhook-id']);
      assert.equal(new Set(ids).size, 600, 'each once');
      assert.equal(releases, 0, 'rows beyond the limit waited in the worker instead of going back');
      assert.ok(claims <= 30, `${claims} claims for 600 messages`);
    });

    /** The API side of one process, with `worker` as its local worker. */
    const apiWith = (worker: LocalWorker) => {
      const outbox = new Outbox();
      outbox.attach(worker);
      return new TransactionService(hub().db, hub().masterKey, outbox, {
        lookups: hub().hub.directory.lookups,
        notifyDailyLimit: 50,
        claimHash: () => Buffer.alloc(32),
      });
    };
    /** The initiation's one message is recorded DELIVERED after exactly one attempt. */
    const assertDeliveredOnce = async (ref: string) => {
      await eventually(
        async () => (await deliveryRows(ref))[0]?.status === 'DELIVERED',
        'the delivery recorded',
      );
      assert.deepEqual(await deliveryRows(ref), [{ event: 'received', status: 'DELIVERED', attempts: 1 }]);
    };

    it('sends at once what its own process hands over, with no claim or NOTIFY', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      // Polls every 30 s; the hand-off sends no NOTIFY: only the hand-off can deliver in time.
      const e = await start(t, fakeHooks(), { pollMs: 30_000 });
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      const { transactionRef } = await apiWith(e.worker).initiate(
        originator.id,
        mainRequest(beneficiary.vaspDid) as InitiateRequest,
      );
      await receiver.waitFor(
        (r) => r.to('/b/v1/notify/received').some((x) => x.body.includes(transactionRef)),
        5000,
      );
      assert.ok(Date.now() - t0 < 2000, `delivered after ${Date.now() - t0} ms`);
      await assertDeliveredOnce(transactionRef);
    });

    it('does not look for due messages again after each handed-over message it sends', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      let claims = 0;
      const counting: Database = {
        ...hub().db,
        query(sql, params) {
          if (sql.includes('SKIP LOCKED')) claims++;
          return hub().db.query(sql, params);
        },
      };
      const e = engine(hub(), fakeHooks(), { pollMs: 30_000 }, counting);
      t.after(() => e.close());
      await e.worker.start();
      const api = apiWith(e.worker);
      const refs: string[] = [];
      for (let i = 0; i < 10; i++) {
        const { transactionRef } = await api.initiate(
          originator.id,
          mainRequest(beneficiary.vaspDid) as InitiateRequest,
        );
        refs.push(transactionRef);
        await receiver.waitFor(
          (r) => r.to('/b/v1/notify/received').some((x) => x.body.includes(transactionRef)),
          5000,
        );
      }
      for (const ref of refs) await assertDeliveredOnce(ref);
      // The claim at start, and none per message (before: one or two for each of the ten).
      assert.ok(claims <= 2, `${claims} claims for 10 handed-over messages`);
    });

    it('sends a handed-over message once its lease runs out if its process died before sending it', async (t) => {
      const { receiver, originator, beneficiary } = await setup();
      // A process that leased the message to itself for 1.5 s, committed it, and died. On
      // PostgreSQL its clock is a minute behind the server's: the lease must still hold 1.5 s by
      // the server's clock, the one other workers' claims compare it with. (PGlite's clock is
      // this process's.)
      const died = {
        wake() {},
        reserve: (n: number) => ({ count: n, leaseMs: 1500 }),
        take() {},
        cancel() {},
      };
      const realNow = Date.now;
      if (backend === 'postgres') Date.now = () => realNow() - 60_000;
      let transactionRef: string;
      try {
        ({ transactionRef } = await apiWith(died).initiate(
          originator.id,
          mainRequest(beneficiary.vaspDid) as InitiateRequest,
        ));
      } finally {
        Date.now = realNow;
      }
      const [leased] = await hub().db.query<{ due: boolean }>(
        'SELECT next_attempt_at <= clock_timestamp() AS due FROM deliveries WHERE transaction_ref = $1',
        [transactionRef],
      );
      assert.equal(leased?.due, false, 'written leased');
      await start(t, fakeHooks(), { pollMs: 100 });
      await new Promise((r) => setTimeout(r, 500));
      const mine = () => receiver.to('/b/v1/notify/received').filter((x) => x.body.includes(transactionRef));
      assert.equal(mine().length, 0, 'no other worker sends it while the lease holds');
      await receiver.waitFor(() => mine().length === 1, 5000, 'the message after its lease ran out');
      await assertDeliveredOnce(transactionRef);
    });
  },
  { HUB_WORKER: 'false' },
);
