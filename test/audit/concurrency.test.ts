/**
 * One chain across processes (SPEC §14): two hub processes on one PostgreSQL write audit rows at
 * once (organizations registered in parallel through both), and the result is a single unbroken chain
 * holding every row: the advisory lock at the head queues writers instead of forking the chain.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { HubProcess, hubEnv } from '../deliveries/hub-process.js';
import { pgAdmin as admin, backendSkip, PG_ADMIN_URL } from '../harness.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', new URL('../../src/cli/index.ts', import.meta.url).pathname];
const PER_CLIENT = 10;

describe('audit chain across two processes on PostgreSQL', {
  skip: await backendSkip('postgres', 'audit chain across two processes'),
}, () => {
  const name = `trh_audit_${randomBytes(6).toString('hex')}`;
  const processes: HubProcess[] = [];
  after(async () => {
    for (const p of processes) await p.stop('SIGKILL').catch(() => {});
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  });

  it('keeps one intact chain while both write audit rows at once', async () => {
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    const env = hubEnv({ DATABASE_URL: url.toString(), HUB_WORKER: 'false' });
    const [a, b] = await Promise.all([HubProcess.start(env), HubProcess.start(env)]);
    processes.push(a!, b!);
    // Organizations registered in parallel through both processes: nothing but the chain's head
    // is shared between these transactions (issuing keys for one organization would queue on it).
    await Promise.all(
      [a!, b!].flatMap((hub) =>
        Array.from({ length: 10 }, async () => {
          for (let i = 0; i < PER_CLIENT; i++) await hub.createOrg({});
        }),
      ),
    );

    const [counts] = await admin<{ n: number; max: number; created: number }>(
      `SELECT count(*)::int AS n, max(seq) AS max,
              count(*) FILTER (WHERE action = 'organization.created')::int AS created
         FROM audit_events`,
      [],
      url.toString(),
    );
    const { n, max, created } = counts!;
    assert.equal(created, 2 * 10 * PER_CLIENT, 'every registration was audited');
    assert.equal(max, n, 'seq runs 1..n without gaps or duplicates');

    const verified = await run(process.execPath, [...CLI, 'audit', 'verify'], {
      env: { ...process.env, ...env },
    });
    const result = JSON.parse(verified.stdout);
    assert.deepEqual([result.ok, result.rows], [true, n]);
  });
});
