import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { bundleCli } from '../scripts/bundle.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', new URL('../src/cli/index.ts', import.meta.url).pathname];
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'trh-cli-'));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string>, command = CLI) {
  return run(process.execPath, [...command, ...args], {
    env: { ...process.env, ...env },
    timeout: 60_000,
  }).then(
    (r) => ({ code: 0, ...r }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );
}

describe('travel-rule-hub command', () => {
  it('refuses to start with a bad HUB_MASTER_KEY, naming the setting in one line', async () => {
    const r = await cli(['serve'], { HUB_DATA_DIR: tempDir(), HUB_MASTER_KEY: 'too-short', PORT: '0' });
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'travel-rule-hub: HUB_MASTER_KEY must be base64 of 32 bytes');
  });

  it('refuses other invalid settings with a clear line', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: 'eighty' }, /PORT must be an integer/],
      [{ HUB_RETRY_SCHEDULE: '5x' }, /HUB_RETRY_SCHEDULE/],
      [{ HUB_WORKER: 'maybe' }, /HUB_WORKER must be true or false/],
      [{ DATABASE_URL: 'postgres://127.0.0.1/x' }, /HUB_ADMIN_KEY is required when DATABASE_URL is set/],
      // Keys the hub could never accept in x-api-key (over 256 characters, not ASCII), or too short.
      [{ HUB_ADMIN_KEY: 'a'.repeat(300) }, /^travel-rule-hub: HUB_ADMIN_KEY must be 32 to 256 printable/],
      [{ HUB_ADMIN_KEY: 'operator-key-über-lang-genug-2026' }, /HUB_ADMIN_KEY must be 32 to 256/],
      [{ HUB_ADMIN_KEY: 'short' }, /HUB_ADMIN_KEY must be 32 to 256/],
      [{ HOST: '999.1.1.1', PORT: '0' }, /^travel-rule-hub: HOST\/PORT: cannot listen on 999\.1\.1\.1:0: /],
      [
        { HUB_ASSET_TABLE: '/nonexistent/assets.json' },
        /^travel-rule-hub: HUB_ASSET_TABLE: asset table \/nonexistent\/assets\.json: cannot read it as JSON \(ENOENT/,
      ],
      [
        { HUB_RULES_FILE: '/nonexistent/rules.json' },
        /^travel-rule-hub: HUB_RULES_FILE: rules table \/nonexistent\/rules\.json: cannot read it as JSON \(ENOENT/,
      ],
      [
        { HUB_FX_RATES: '/nonexistent/rates.json' },
        /^travel-rule-hub: HUB_FX_RATES: rates file \/nonexistent/,
      ],
    ];
    for (const [env, pattern] of cases) {
      const r = await cli(['serve'], { HUB_DATA_DIR: tempDir(), ...env });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, pattern);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });

  it('refuses an admin.key file holding a key the hub could not accept, naming the file', async () => {
    for (const content of ['short\n', '\n']) {
      const dir = tempDir();
      writeFileSync(join(dir, 'admin.key'), content, { mode: 0o600 });
      const r = await cli(['serve'], { HUB_DATA_DIR: dir, PORT: '0' });
      assert.notEqual(r.code, 0);
      assert.equal(
        r.stderr.trim(),
        `travel-rule-hub: ${join(dir, 'admin.key')} (HUB_ADMIN_KEY) must be 32 to 256 printable ASCII characters (spaces only between others)`,
      );
    }
  });

  it('makes a pre-created, world-readable data directory private (0700) at start', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const r = await cli(['org', 'list'], { HUB_DATA_DIR: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
  });

  it('creates, lists and verifies organizations and manages keys from the shell', async () => {
    const env = { HUB_DATA_DIR: tempDir() };
    const created = await cli(
      ['org', 'create', '--name', 'Shell VASP', '--did', 'did:web:shell.example'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const out = JSON.parse(created.stdout);
    assert.match(out.apiKey, /^trh_/);
    assert.equal(out.organization.organizationType, 'unverified');
    assert.equal(statSync(join(env.HUB_DATA_DIR, 'admin.key')).mode & 0o777, 0o600);

    const verified = JSON.parse((await cli(['org', 'verify', out.organization.id], env)).stdout);
    assert.equal(verified.organizationType, 'verified');
    const list = JSON.parse((await cli(['org', 'list'], env)).stdout);
    assert.deepEqual(
      list.organizations.map((o: any) => o.vaspDid),
      ['did:web:shell.example'],
    );
    const key = JSON.parse((await cli(['key', 'create', out.organization.id], env)).stdout);
    assert.match(key.apiKey, /^trh_/);
    const revoked = await cli(['key', 'revoke', key.keyId], env);
    assert.equal(revoked.code, 0, revoked.stderr);

    const dup = await cli(['org', 'create', '--name', 'Again', '--did', 'did:web:shell.example'], env);
    assert.notEqual(dup.code, 0);
    assert.match(dup.stderr, /already exists/);
  });

  it('sets and clears an organization’s jurisdiction and LEI from the shell', async () => {
    const env = { HUB_DATA_DIR: tempDir() };
    const lei = '529900T8BM49AURSDO55';
    const created = await cli(
      [
        'org',
        'create',
        '--name',
        'Alpen VASP',
        '--did',
        'did:web:alpen.example',
        '--jurisdiction',
        'ch',
        '--lei',
        lei,
      ],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const org = JSON.parse(created.stdout).organization;
    assert.deepEqual([org.jurisdiction, org.lei], ['CH', lei]);
    const updated = await cli(['org', 'update', org.id, '--jurisdiction', 'none', '--lei', 'none'], env);
    assert.equal(updated.code, 0, updated.stderr);
    assert.deepEqual([JSON.parse(updated.stdout).jurisdiction, JSON.parse(updated.stdout).lei], [null, null]);
    const bad = await cli(['org', 'update', org.id, '--lei', '529900T8BM49AURSDO56'], env);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /\/lei: must be an ISO 17442 LEI/);
  });

  it('prints an operator key it generated before the first start, on stderr, once', async () => {
    const env = { HUB_DATA_DIR: tempDir() };
    const first = await cli(['org', 'list'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { organizations: [] });
    const saved = readFileSync(join(env.HUB_DATA_DIR, 'admin.key'), 'utf8').trim();
    assert.match(
      first.stderr,
      new RegExp(`^Operator key \\(shown once; also saved in .*admin\\.key\\): ${saved}$`, 'm'),
    );
    const second = await cli(['org', 'list'], env);
    assert.doesNotMatch(second.stderr, /Operator key/);
  });

  it('migrate reports the migrations it applied, and none the second time', async () => {
    const env = { HUB_DATA_DIR: tempDir() };
    const first = await cli(['migrate'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { applied: allMigrations() });
    const second = await cli(['migrate'], env);
    assert.deepEqual(JSON.parse(second.stdout), { applied: [] });
  });

  it('answers bad arguments, missing files and a port in use with one clear line', async () => {
    const env = { HUB_DATA_DIR: tempDir() };
    await cli(['migrate'], env); // the first command also prints the generated operator key
    const dir = tempDir();
    const existing = join(dir, 'exists.pem');
    writeFileSync(existing, 'x');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const busy = String((blocker.address() as AddressInfo).port);
    const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const cases: [string[], RegExp][] = [
      [['org', 'verify', 'not-a-uuid'], /expected an id/],
      [['key', 'revoke', 'not-a-uuid'], /expected an id/],
      [
        ['org', 'create', '--name', 'X', '--did', 'did:web:x.example', '--public-key', join(dir, 'nope.pem')],
        /ENOENT|no such file/,
      ],
      [['keygen', '--out', existing], /EEXIST|already exists/],
      [['receiver', '--port', 'abc', '--secret', secret], /expected a port number/],
      [
        ['receiver', '--port', '0', '--secret', 'notasecret'],
        /--secret: webhook secret must start with whsec_/,
      ],
      [
        ['receiver', '--port', '0', '--secret', secret, '--private-key', existing],
        /--private-key: .* holds no PEM private key/,
      ],
      [['receiver', '--port', busy, '--secret', secret], /EADDRINUSE|address already in use/],
    ];
    try {
      for (const [args, pattern] of cases) {
        const r = await cli(args, env);
        assert.notEqual(r.code, 0, args.join(' '));
        assert.match(r.stderr, pattern, args.join(' '));
        assert.equal(r.stderr.trim().split('\n').length, 1, `${args.join(' ')}: ${r.stderr}`);
      }
    } finally {
      blocker.close();
    }
  });

  it('starts on a fresh data directory, prints the URLs and the operator key once, and stops on SIGTERM', async (t) => {
    const dir = tempDir();
    const first = await startServe({ HUB_DATA_DIR: dir, PORT: '0' });
    t.after(() => first.child.kill('SIGKILL')); // a failed assertion must not leave the hub running
    assert.match(first.output, /listening on http:\/\/127\.0\.0\.1:\d+/);
    assert.match(first.output, /API docs: http:\/\/127\.0\.0\.1:\d+\/docs/);
    assert.match(first.output, /Operator key \(shown once/);
    assert.ok(
      first.output.includes(
        `Database: embedded PGlite in ${dir} (migrations applied now: ${allMigrations().join(', ')})`,
      ),
      first.output,
    );

    const second = await startServe({ HUB_DATA_DIR: dir, PORT: '0' }, true);
    assert.notEqual(second.code, 0);
    assert.match(second.output, /HUB_DATA_DIR .* is in use by another hub process/);

    first.child.kill('SIGTERM');
    const code = await new Promise((resolve) => first.child.once('exit', resolve));
    assert.equal(code, 0);

    const again = await startServe({ HUB_DATA_DIR: dir, PORT: '0' });
    assert.doesNotMatch(again.output, /Operator key/);
    assert.match(again.output, /Database: embedded PGlite in .*\n/);
    assert.doesNotMatch(again.output, /migrations applied/, 'an up-to-date schema is not mentioned');
    again.child.kill('SIGTERM');
    await new Promise((resolve) => again.child.once('exit', resolve));
  });
});

describe('the bundle that `npm start` runs', () => {
  // Built fresh from the sources, two directories below the project root like dist/bundle/.
  const outdir = new URL(`../.tmp/bundle-${process.pid}/`, import.meta.url).pathname;
  const BUNDLE = [join(outdir, 'index.js')];
  before(() => bundleCli(outdir));
  after(() => rmSync(outdir, { recursive: true, force: true }));

  it('runs operator commands and serves the API, its documentation and the dashboard', async () => {
    const env = { HUB_DATA_DIR: tempDir(), PORT: '0' };
    const created = await cli(
      ['org', 'create', '--name', 'Bundled', '--did', 'did:web:bundled.example'],
      env,
      BUNDLE,
    );
    assert.equal(created.code, 0, created.stderr);
    const { apiKey } = JSON.parse(created.stdout);

    const hub = await startServe(env, false, BUNDLE);
    try {
      const base = hub.output.match(/listening on (http:\/\/\S+)/)?.[1];
      assert.ok(base, hub.output);
      assert.equal((await fetch(`${base}/readyz`)).status, 200);
      const openapi = await fetch(`${base}/openapi.json`);
      assert.ok(Object.keys((await openapi.json()).paths).includes('/v1/transactions/initiate'));
      assert.match(await (await fetch(`${base}/docs/`)).text(), /swagger/i);
      assert.match(await (await fetch(`${base}/ui/`)).text(), /<html/i);

      const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
      const me = await fetch(`${base}/v1/organizations/me`, { headers });
      assert.equal(me.status, 200);
      assert.equal((await me.json()).vaspDid, 'did:web:bundled.example');
      const bad = await fetch(`${base}/v1/transactions/initiate`, { method: 'POST', headers, body: '{}' });
      assert.equal(bad.status, 400);
      assert.equal((await bad.json()).code, 'VALIDATION_FAILED');
    } finally {
      hub.child.kill('SIGTERM');
    }
    assert.equal(await new Promise((resolve) => hub.child.once('exit', resolve)), 0);
  });
});

/** Starts `serve` and resolves once it printed its URL (or exited, when `expectExit`). */
function startServe(env: Record<string, string>, expectExit = false, command = CLI) {
  return new Promise<{ child: ChildProcess; output: string; code?: number }>((resolve, reject) => {
    const child = spawn(process.execPath, [...command, 'serve'], { env: { ...process.env, ...env } });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 60_000);
    const onData = (d: Buffer) => {
      output += d;
      if (
        !expectExit &&
        /API docs:/.test(output) &&
        (/Operator key/.test(output) || /Database:/.test(output))
      ) {
        setTimeout(() => {
          clearTimeout(timer);
          resolve({ child, output });
        }, 50);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (expectExit) resolve({ child, output, code: code ?? -1 });
    });
  });
}

/** Every migration, SQL files and data steps, in the order they apply. */
function allMigrations(): string[] {
  const sql = readdirSync(new URL('../migrations/', import.meta.url)).filter((f) => f.endsWith('.sql'));
  const steps = readdirSync(new URL('../src/db/steps/', import.meta.url)).map((f) => f.replace(/\.ts$/, ''));
  return [...sql, ...steps].sort();
}
