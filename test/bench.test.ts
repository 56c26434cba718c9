import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

it('runs the benchmark at a tiny scale and prints every scenario with its baseline ratio', async () => {
  const root = new URL('..', import.meta.url).pathname;
  const env = { ...process.env };
  delete env.DATABASE_URL; // the smoke run uses PGlite
  const { stdout } = await run('npm', ['run', '--silent', 'bench', '--', '--smoke'], {
    cwd: root,
    env,
    timeout: 240_000,
    maxBuffer: 4 * 1024 * 1024,
  });
  assert.match(stdout, /^\| scenario \| value \| unit \| p50 ms \| p99 ms \| errors \| ratio \| note \|$/m);
  for (const scenario of [
    'baseline: Fastify POST + schema validation',
    'baseline: + naive 1-row insert',
    'initiate (auth, validation, IVMS101, encryption, commit)',
    'hub RSS under initiate load',
    'start-up to /readyz, existing data',
    'end-to-end: initiate response → received webhook',
    'baseline: raw undici sender',
    'one worker draining',
  ]) {
    assert.ok(stdout.includes(`| ${scenario}`), `missing row: ${scenario}`);
  }
  assert.match(stdout, /\d+(\.\d+)?× naive insert/);
  assert.match(stdout, /\d+(\.\d+)?× raw sender/);
  assert.match(stdout, /machine idle \d+ %; main thread running \d+ %, waiting for a CPU \d+ %/);
  assert.match(stdout, /one worker draining.*; hub \d+ µs per delivery/);
  const latest = JSON.parse(readFileSync(new URL('../bench/results/latest.json', import.meta.url), 'utf8'));
  assert.equal(latest.scale.name, 'smoke');
  assert.ok(latest.rows.length >= 10);
  for (const row of latest.rows) assert.equal(typeof row.value, 'number', row.scenario);
});
