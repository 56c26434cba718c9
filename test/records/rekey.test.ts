/**
 * Master-key rotation (SPEC §14) end to end: data sealed under key 1, the hub rotated to key 2
 * (key 1 kept as previous), `travel-rule-hub rekey` run as a real child process and killed with
 * SIGKILL midway, run again to the end, and the hub started with key 2 alone: every transaction's
 * personal data, reasons and review notes still read, and no blob names key 1. On PostgreSQL the hub serves (and
 * takes new transactions) while rekey runs; the embedded database has one owner, so there the hub
 * is stopped for it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { keyIdOf } from '../../src/crypto/envelope.js';
import { toBuffer } from '../../src/db/database.js';
import { SEALED_COLUMNS } from '../../src/keys/sealed.js';
import { eachBackend, type TestHub } from '../harness.js';
import { eventually } from '../support/receiver.js';
import { mainRequest, notifyRequest, uniqueName } from '../support/requests.js';

const CLI = ['--import', 'tsx', new URL('../../src/cli/index.ts', import.meta.url).pathname];

/** Key id (or 'v1') of every sealed blob in the database, counted. */
async function blobsByKey(hub: TestHub): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const c of SEALED_COLUMNS) {
    const rows = await hub.db.query(
      `SELECT ${c.column} AS blob FROM ${c.table} WHERE ${c.column} IS NOT NULL`,
    );
    for (const r of rows) {
      const blob = toBuffer(r.blob);
      const id = blob[0] === 2 ? blob.subarray(1, 9).toString('hex') : `v${blob[0]}`;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return counts;
}

/** The hub's database settings for a child process, with these master keys. */
function cliEnv(hub: TestHub, current: Buffer, previous: Buffer[]): Record<string, string> {
  const env: Record<string, string> = {
    HUB_ADMIN_KEY: hub.adminKey,
    HUB_MASTER_KEY: current.toString('base64'),
    HUB_MASTER_KEYS_PREVIOUS: previous.map((k) => k.toString('base64')).join(','),
    HUB_LOG_LEVEL: 'silent',
  };
  if (hub.config.databaseUrl) env.DATABASE_URL = hub.config.databaseUrl;
  else env.HUB_DATA_DIR = hub.config.dataDir;
  return env;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `rekey`; with `killAfterProgress`, SIGKILLs it once it reports its first re-sealed batch. */
function runRekey(env: Record<string, string>, args: string[], killAfterProgress = false): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, 'rekey', ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      if (killAfterProgress && /rekey: [1-9]\d*\/\d+ re-sealed/.test(stderr)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

eachBackend(
  'master-key rotation with rekey',
  (hub, backend) => {
    it('re-seals everything under the new key across a kill -9, and the old key is then no longer needed', async () => {
      const key1 = hub().masterKey;
      const key2 = randomBytes(32);
      const originator = await hub().createOrg();
      const beneficiary = await hub().createOrg({ travelEndpoint: 'http://127.0.0.1:9/bene' });
      const names = new Map<string, string>();
      const initiate = async () => {
        const name = uniqueName();
        const res = await hub().request('POST', '/v1/transactions/initiate', {
          key: originator.apiKey,
          body: mainRequest(beneficiary.vaspDid, name),
        });
        assert.equal(res.status, 200, res.text);
        names.set(res.body.transactionRef, name);
        return res.body.transactionRef as string;
      };
      for (let i = 0; i < 24; i++) await initiate();
      // A NOTIFY transaction: its claim link is minted now, under key 1.
      const notifyName = uniqueName();
      const notify = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: notifyRequest(randomUUID(), notifyName),
      });
      assert.equal(notify.status, 200, notify.text);
      const notifyRef = notify.body.transactionRef as string;
      names.set(notifyRef, notifyName);
      // A reason and a keyed command's answer are sealed too.
      const cancelled = [...names.keys()][0]!;
      const retryCancel = () =>
        hub().request('POST', '/v1/transactions/cancel', {
          key: originator.apiKey,
          body: { transactionRef: cancelled, reason: 'Withdrawn at the customer’s request' },
          headers: { 'idempotency-key': `cancel-${cancelled}` },
        });
      const cancel = await retryCancel();
      assert.equal(cancel.status, 200, cancel.text);
      // And a review note (src/reviews/).
      const reviewed = [...names.keys()][1]!;
      const note = `Reviewed ${uniqueName()}`;
      const noted = await hub().request('POST', `/v1/transactions/${reviewed}/review`, {
        key: originator.apiKey,
        body: { state: 'in_review', note },
      });
      assert.equal(noted.status, 200, noted.text);
      const before = await blobsByKey(hub());
      assert.deepEqual([...before.keys()], [keyIdOf(key1)], 'everything starts sealed under key 1');
      const total = before.get(keyIdOf(key1))!;

      // Rotate: key 2 seals from now on, key 1 still opens.
      await hub().stop();
      hub().masterKey = key2;
      hub().previousMasterKeys = [key1];
      if (backend === 'postgres') await hub().start(); // the hub serves while rekey runs

      const env = cliEnv(hub(), key2, [key1]);
      const killed = await runRekey(env, ['--batch-size', '2', '--pause', '300'], true);
      assert.equal(killed.signal, 'SIGKILL', killed.stderr);
      assert.match(killed.stderr, new RegExp(`rekey: re-sealing under master key ${keyIdOf(key2)}`));

      if (backend === 'postgres')
        await initiate(); // a write during the rotation, sealed under key 2
      else await hub().start(); // (reads the half-done state)
      const midway = await blobsByKey(hub());
      assert.ok((midway.get(keyIdOf(key1)) ?? 0) > 0, 'the kill left blobs under key 1');
      assert.ok((midway.get(keyIdOf(key2)) ?? 0) > 0, 'the kill came after some were re-sealed');
      const replay = await retryCancel();
      assert.equal(
        replay.status,
        200,
        'a keyed retry from before the rotation still replays its sealed answer',
      );
      assert.equal(replay.body.status, 'CANCELLED');
      if (backend === 'pglite') await hub().stop();

      const resumed = await runRekey(env, ['--batch-size', '5']);
      assert.equal(resumed.code, 0, resumed.stderr);
      const result = JSON.parse(resumed.stdout);
      assert.equal(result.keyId, keyIdOf(key2));
      assert.equal(result.resealed, midway.get(keyIdOf(key1)));
      assert.match(resumed.stderr, /rekey: (\d+)\/\1 re-sealed \(100%\)/);
      assert.ok(result.resealed < total);

      // Key 2 alone.
      if (backend === 'postgres') await hub().stop();
      hub().previousMasterKeys = [];
      await hub().start();
      const after = await blobsByKey(hub());
      assert.deepEqual([...after.keys()], [keyIdOf(key2)], 'nothing sealed under key 1 remains');
      for (const [ref, name] of names) {
        const pii = await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: originator.apiKey });
        assert.equal(pii.status, 200, pii.text);
        assert.ok(pii.text.includes(name));
      }
      const read = await hub().request('GET', `/v1/transactions/${cancelled}`, { key: originator.apiKey });
      assert.equal(read.body.cancelReason, 'Withdrawn at the customer’s request');
      const review = await hub().request('GET', `/v1/transactions/${reviewed}`, { key: originator.apiKey });
      assert.deepEqual(
        review.body.review.notes.map((n: { text: string }) => n.text),
        [note],
        'the review note reads under key 2 alone',
      );
      const late = await retryCancel();
      assert.equal(
        late.status,
        409,
        'once key 1 is gone, a retry from before the rotation is refused, never run twice',
      );
      assert.equal(late.body.code, 'IDEMPOTENCY_CONFLICT');
      const [claim] = await hub().db.query('SELECT token_hash FROM claims WHERE transaction_ref = $1', [
        notifyRef,
      ]);
      assert.ok(
        hub().hub.claims.claimHash(notifyRef).equals(toBuffer(claim!.token_hash)),
        'a claim link composed after the rotation is the one minted before it',
      );
      // A second run finds nothing left.
      const idle = await runRekey(cliEnv(hub(), key2, []), []);
      if (backend === 'postgres') assert.equal(JSON.parse(idle.stdout).resealed, 0);
      else assert.match(idle.stderr, /in use by another hub process/);
    });
  },
  { HUB_WORKER: 'false' },
);

eachBackend('master-key rotation inside the serving hub', (hub, backend) => {
  it(
    backend === 'pglite'
      ? 'an embedded hub started with a previous key re-seals everything in the background and shows its progress'
      : 'a hub on PostgreSQL leaves re-sealing to the rekey command (its status stays idle)',
    async () => {
      const key1 = hub().masterKey;
      const key2 = randomBytes(32);
      const originator = await hub().createOrg();
      const beneficiary = await hub().createOrg({ travelEndpoint: 'http://127.0.0.1:9/bene' });
      const names = new Map<string, string>();
      for (let i = 0; i < 12; i++) {
        const name = uniqueName();
        const res = await hub().request('POST', '/v1/transactions/initiate', {
          key: originator.apiKey,
          body: mainRequest(beneficiary.vaspDid, name),
        });
        assert.equal(res.status, 200, res.text);
        names.set(res.body.transactionRef, name);
      }
      const idle = await hub().admin('GET', '/v1/admin/rekey');
      assert.equal(idle.status, 200, idle.text);
      assert.deepEqual(
        [idle.body.keyId, idle.body.state],
        [keyIdOf(key1), 'idle'],
        'nothing to do with one key',
      );
      assert.equal(
        (await hub().request('GET', '/v1/admin/rekey', { key: originator.apiKey })).status,
        403,
        'operators only',
      );

      await hub().stop();
      hub().masterKey = key2;
      hub().previousMasterKeys = [key1];
      await hub().start();
      if (backend === 'postgres') {
        const status = await hub().admin('GET', '/v1/admin/rekey');
        assert.deepEqual([status.body.keyId, status.body.state], [keyIdOf(key2), 'idle']);
        assert.ok((await blobsByKey(hub())).has(keyIdOf(key1)), 'nothing was re-sealed');
        return;
      }
      const done = await eventually(async () => {
        const status = await hub().admin('GET', '/v1/admin/rekey');
        return status.body.state === 'done' ? status.body : undefined;
      }, 'the background re-sealing to finish');
      assert.equal(done.keyId, keyIdOf(key2));
      assert.equal(done.error, null);
      assert.ok(done.total > 0 && done.done === done.total, JSON.stringify(done));
      assert.deepEqual([...(await blobsByKey(hub())).keys()], [keyIdOf(key2)]);
      assert.ok(
        hub().logs.some((l) => l.includes('"component":"rekey"') && l.includes(`"done":${done.total}`)),
        'its progress is logged',
      );

      // Key 2 alone opens everything.
      await hub().stop();
      hub().previousMasterKeys = [];
      await hub().start();
      for (const [ref, name] of names) {
        const pii = await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: originator.apiKey });
        assert.equal(pii.status, 200, pii.text);
        assert.ok(pii.text.includes(name));
      }
    },
  );
});
