/**
 * The audit hash chain (SPEC §14) on both databases: every row is linked, the database refuses
 * changes, and `audit verify` names the row that an owner bypassing the trigger changed,
 * deleted or moved; a consistently rewritten chain no longer holds an earlier checkpoint.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { promisify } from 'node:util';
import { GENESIS, type LinkedRow, linkHash } from '../../src/audit/chain.js';
import { auditRows } from '../../src/audit/reader.js';
import { eachBackend, type TestHub } from '../harness.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', new URL('../../src/cli/index.ts', import.meta.url).pathname];
let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'trh-audit-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI against the hub's database; the embedded one is closed meanwhile (one owner). */
async function cli(hub: TestHub, args: string[]) {
  const env: Record<string, string> = {
    HUB_ADMIN_KEY: hub.adminKey,
    HUB_MASTER_KEY: hub.masterKey.toString('base64'),
    HUB_LOG_LEVEL: 'warn',
    ...(hub.config.databaseUrl
      ? { DATABASE_URL: hub.config.databaseUrl }
      : { HUB_DATA_DIR: hub.config.dataDir }),
  };
  if (hub.backend === 'pglite') await hub.stop();
  try {
    return await run(process.execPath, [...CLI, ...args], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
    );
  } finally {
    if (hub.backend === 'pglite') await hub.start();
  }
}

/** As the database's owner could: with the triggers off for one transaction. */
function bypassing(hub: TestHub, sql: string, params: unknown[] = []) {
  return hub.db.transaction(async (tx) => {
    await tx.query('SET LOCAL session_replication_role = replica');
    await tx.query(sql, params);
  });
}

/** Rows `a` and `b` trade places in the chain (their seq), as a reordering of history would. */
async function swap(hub: TestHub, a: number, b: number) {
  await bypassing(hub, 'UPDATE audit_events SET seq = -seq WHERE seq IN ($1, $2)', [a, b]);
  await bypassing(
    hub,
    'UPDATE audit_events SET seq = CASE seq WHEN $1::int THEN $2::int ELSE $3::int END WHERE seq IN ($1::int, $4::int)',
    [-a, b, a, -b],
  );
}

eachBackend('audit chain', (ctx) => {
  const hub = ctx;

  it('links every row to the one before it, from the genesis hash', async () => {
    const org = await hub().createOrg();
    for (let i = 0; i < 3; i++) {
      const res = await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey, body: {} });
      assert.equal(res.status, 201, res.text);
    }
    const rows = await hub().db.query<{ seq: number; prev_hash: string; hash: string }>(
      'SELECT seq, prev_hash, hash FROM audit_events ORDER BY seq',
    );
    assert.ok(rows.length >= 4);
    assert.equal(rows[0]!.seq, 1);
    assert.equal(rows[0]!.prev_hash, GENESIS);
    rows.forEach((r, i) => {
      assert.equal(r.seq, i + 1);
      if (i > 0) assert.equal(r.prev_hash, rows[i - 1]!.hash);
    });
    const page = await hub().admin('GET', '/v1/admin/audit?limit=100');
    assert.equal(page.status, 200, page.text);
    for (const e of page.body.events) {
      const { prevHash, hash, ...row } = e;
      assert.equal(linkHash(prevHash, row), hash, `row ${e.seq}`);
    }
  });

  it('refuses UPDATE, DELETE, TRUNCATE and a row that does not extend the head', async () => {
    for (const sql of [
      "UPDATE audit_events SET actor = 'hub' WHERE seq = 1",
      'DELETE FROM audit_events WHERE seq = 1',
      'TRUNCATE audit_events',
      `INSERT INTO audit_events (seq, actor, action, subject_type, subject_id, prev_hash, hash)
         VALUES (1000, 'hub', 'x', 'organization', 'x', '${GENESIS}', '${'a'.repeat(64)}')`,
    ]) {
      await assert.rejects(
        hub().db.transaction((tx) => tx.query(sql)),
        /append-only|does not extend the chain/,
        sql,
      );
    }
    const page = await hub().admin('GET', '/v1/admin/audit/verify');
    assert.deepEqual([page.status, page.body.ok], [200, true], page.text);
  });

  it('audit verify exits 0 on an intact chain and names a changed, a deleted and a moved row', async () => {
    const ok = await cli(hub(), ['audit', 'verify']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).ok, true);

    const [row] = await hub().db.query<{ seq: number; actor: string }>(
      'SELECT seq, actor FROM audit_events WHERE seq = 2',
    );
    await bypassing(hub(), "UPDATE audit_events SET actor = 'operator:someone-else' WHERE seq = 2");
    const changed = await cli(hub(), ['audit', 'verify']);
    assert.equal(changed.code, 1);
    assert.match(changed.stderr, /broken at seq 2: row seq 2: hash does not match its content/);
    await bypassing(hub(), 'UPDATE audit_events SET actor = $1 WHERE seq = 2', [row!.actor]);

    await swap(hub(), 2, 3);
    const moved = await cli(hub(), ['audit', 'verify']);
    assert.equal(moved.code, 1);
    assert.match(moved.stderr, /broken at seq 2: row seq 2: /);
    await swap(hub(), 2, 3);

    const keep = await hub().db.query('SELECT * FROM audit_events WHERE seq = 3');
    await bypassing(hub(), 'DELETE FROM audit_events WHERE seq = 3');
    const deleted = await cli(hub(), ['audit', 'verify']);
    assert.equal(deleted.code, 1);
    assert.match(deleted.stderr, /broken at seq 3: row seq 3 is missing/);
    const k = keep[0]!;
    await bypassing(
      hub(),
      `INSERT INTO audit_events (id, at, actor, action, subject_type, subject_id, details, seq, prev_hash, hash)
       OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [k.id, k.at, k.actor, k.action, k.subject_type, k.subject_id, k.details, k.seq, k.prev_hash, k.hash],
    );
    const restored = await cli(hub(), ['audit', 'verify']);
    assert.equal(restored.code, 0, restored.stderr);
  });

  it('an earlier export’s checkpoint fails against a consistently rewritten chain', async () => {
    const exported = await hub().admin('GET', '/v1/admin/audit?format=jsonl');
    assert.equal(exported.status, 200);
    const file = join(dir, `before-${hub().backend}.jsonl`);
    writeFileSync(file, exported.text);

    // The owner rewrites history and recomputes every hash after it: the chain itself checks out.
    const rows: LinkedRow[] = [];
    for await (const r of auditRows(hub().db, {}, { uptoSeq: 2 ** 31 - 1 })) rows.push(r);
    let prev = GENESIS;
    await hub().db.transaction(async (tx) => {
      await tx.query('SET LOCAL session_replication_role = replica');
      for (const r of rows) {
        const row = { ...r, actor: r.seq === 1 ? 'operator:nobody' : r.actor };
        const hash = linkHash(prev, row);
        await tx.query('UPDATE audit_events SET actor = $2, prev_hash = $3, hash = $4 WHERE seq = $1', [
          r.seq,
          row.actor,
          prev,
          hash,
        ]);
        prev = hash;
      }
    });
    const plain = await cli(hub(), ['audit', 'verify']);
    assert.equal(plain.code, 0, plain.stderr);
    const held = await cli(hub(), ['audit', 'verify', '--checkpoint', file]);
    assert.equal(held.code, 1);
    assert.match(held.stderr, /does not have the checkpoint’s hash \(the chain was rewritten\)/);
  });

  it('checks an export offline against the auditor’s public key, and names a tampered line', async () => {
    const keyFile = join(dir, `key-${hub().backend}.pem`);
    const pub = await cli(hub(), ['audit', 'public-key']);
    assert.equal(pub.code, 0, pub.stderr);
    writeFileSync(keyFile, pub.stdout);
    const checkpoint = await hub().admin('GET', '/v1/admin/audit/checkpoint');
    assert.equal(checkpoint.body.publicKey, pub.stdout);

    const exported = await hub().admin('GET', '/v1/admin/audit?format=jsonl');
    assert.match(exported.headers.get('content-type') ?? '', /^application\/jsonl/);
    const file = join(dir, `export-${hub().backend}.jsonl`);
    writeFileSync(file, exported.text);
    const good = await run(process.execPath, [
      ...CLI,
      'audit',
      'verify',
      '--file',
      file,
      '--public-key',
      keyFile,
    ]);
    assert.equal(JSON.parse(good.stdout).ok, true);

    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const third = JSON.parse(lines[2]!);
    third.subjectId = 'someone-else';
    lines[2] = JSON.stringify(third);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const bad = await run(process.execPath, [
      ...CLI,
      'audit',
      'verify',
      '--file',
      file,
      '--public-key',
      keyFile,
    ]).catch((e) => e);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /broken at seq 3: row seq 3: hash does not match its content/);
  });
});
