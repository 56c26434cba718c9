/**
 * Crash safety on the embedded database: a hub killed with SIGKILL while deliveries are pending
 * (some in flight, some waiting for a retry) delivers every one of them after a restart. A
 * receiver may see a message twice (it got it, the hub died before recording that), but only
 * ever under the same webhook-id.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { eventually, Receiver } from '../support/receiver.js';
import { mainRequest } from '../support/requests.js';
import { HubProcess, hubEnv } from './hub-process.js';

const COUNT = 25;

describe('crash safety', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trh-crash-'));
  const processes: HubProcess[] = [];
  let receiver: Receiver;
  after(async () => {
    for (const p of processes) await p.stop('SIGKILL').catch(() => {});
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers every pending message after a SIGKILL and a restart, duplicates only under one webhook-id', async (t) => {
    receiver = await Receiver.start();
    const env = hubEnv({ HUB_DATA_DIR: dir, HUB_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms,300ms' });
    const first = await HubProcess.start(env);
    processes.push(first);
    const originator = await first.createOrg({});
    const beneficiary = await first.createOrg({ travelEndpoint: `${receiver.url}/b` });

    // At first the receiver is slow (the hub is still waiting for its answers when it dies) and
    // then failing (those deliveries wait for a retry when it dies).
    receiver.script(
      '/b/v1/notify/received',
      ...Array.from({ length: 10 }, () => ({ status: 200, delayMs: 4000 })),
    );
    receiver.otherwise(503);
    const refs: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const res = await first.request(
        'POST',
        '/v1/transactions/initiate',
        originator.apiKey,
        mainRequest(beneficiary.vaspDid),
      );
      assert.equal(res.status, 200, res.text);
      refs.push(res.body.transactionRef);
    }
    await receiver.waitFor((r) => r.to('/b/v1/notify/received').length >= 15, 20_000, 'deliveries under way');
    assert.equal(await first.stop('SIGKILL'), 'SIGKILL');
    const seenBeforeCrash = receiver.requests.length;

    receiver.otherwise(200);
    const second = await HubProcess.start(env);
    processes.push(second);
    const statuses = async () =>
      Promise.all(
        refs.map(
          async (ref) =>
            (await second.request('GET', `/v1/transactions/${ref}`, originator.apiKey)).body.status,
        ),
      );
    // In-flight deliveries are leased for 30 s; after that another attempt goes out.
    await eventually(
      async () => (await statuses()).every((s) => s === 'RECEIVER_NOTIFIED'),
      'every transaction RECEIVER_NOTIFIED after the restart',
      75_000,
      500,
    );

    const got = receiver.to('/b/v1/notify/received');
    assert.ok(got.length > seenBeforeCrash, 'the restarted hub sent again');
    const refById = new Map<string, string>();
    const verifier = new Webhook(beneficiary.webhookSecret);
    for (const r of got) {
      const id = String(r.headers['webhook-id']);
      const payload = verifier.verify(r.body, {
        'webhook-id': id,
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      }) as { transactionRef: string };
      const known = refById.get(id);
      assert.ok(known === undefined || known === payload.transactionRef, 'one webhook-id is one message');
      refById.set(id, payload.transactionRef);
    }
    assert.equal(refById.size, COUNT, 'one webhook-id per delivery');
    assert.deepEqual([...new Set(refById.values())].sort(), [...refs].sort(), 'none lost');
    t.diagnostic(
      `${got.length} requests for ${COUNT} deliveries (${seenBeforeCrash} before the crash); ` +
        `${got.length - refById.size} repeats, all under their first webhook-id`,
    );
    const acknowledged = new Set(
      got.filter((r) => r.answered === 200).map((r) => String(r.headers['webhook-id'])),
    );
    assert.equal(acknowledged.size, COUNT);

    const list = await second.request('GET', '/v1/webhooks/deliveries?limit=100', beneficiary.apiKey);
    assert.equal(list.body.deliveries.length, COUNT);
    assert.ok(list.body.deliveries.every((d: { status: string }) => d.status === 'DELIVERED'));
    assert.equal(await second.stop('SIGTERM'), 0, 'a clean stop after recovery');
  });
});
