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
  const scenarios = [
    'baseline: Fastify POST + schema validation',
    'baseline: + naive 1-row insert',
    'initiate (auth, validation, IVMS101, encryption, commit)',
    'initiate with an Idempotency-Key per request',
    'hub RSS under initiate load',
    'hub CPU under initiate load',
    'start-up to /readyz, new data',
    'start-up to /readyz, existing data',
    'end-to-end: initiate sent → received webhook',
    'baseline: raw undici sender',
    'one worker draining',
    "one hanging receiver: 9 of 10 recipients' latency, initiate sent → received webhook at 50/s spread over 10, the 10th answering",
    "one hanging receiver: 9 of 10 recipients' latency, initiate sent → received webhook at 50/s spread over 10, the 10th never answering",
  ];
  for (const scenario of scenarios) {
    assert.ok(stdout.includes(`| ${scenario}`), `missing row: ${scenario}`);
  }
  assert.match(stdout, /\d+(\.\d+)?× naive insert/);
  assert.match(stdout, /\d+(\.\d+)?× raw sender/);
  assert.match(stdout, /machine idle \d+ %; main thread running \d+ %, waiting for a CPU \d+ %/);
  assert.match(stdout, /one worker draining.*; hub \d+ µs per delivery/);
  assert.match(stdout, /the 10th answering \|.*\| target p99 ≤ 50 ms: (met|\*\*missed\*\*);/);
  assert.match(
    stdout,
    /the 10th never answering \|.*\| \d+(\.\d+)?× all answering \| target p99 ≤ 50 ms: (met|\*\*missed\*\*);.*the hanging receiver got \d+ requests, none answered/,
  );
  const latest = JSON.parse(readFileSync(new URL('../bench/results/latest.json', import.meta.url), 'utf8'));
  assert.equal(latest.scale.name, 'smoke');
  for (const scenario of scenarios) {
    assert.ok(
      latest.rows.some((row: { scenario: string }) => row.scenario.startsWith(scenario)),
      `missing in latest.json: ${scenario}`,
    );
  }
  for (const row of latest.rows) assert.equal(typeof row.value, 'number', row.scenario);
  // Every initiation answered 2xx and every webhook arrived, or the figures mean nothing.
  for (const row of latest.rows.filter((r: { scenario: string }) =>
    /^(initiate|end-to-end|one worker|one hanging)/.test(r.scenario),
  )) {
    assert.equal(row.errors, 0, `${row.scenario}: ${row.errors} errors`);
  }
  assert.match(stdout, /(\d+)\/\1 arrived/);
});

it('compares two builds with --base: before and after rows, the ratio and a verdict', async () => {
  // Runs after the test above built dist/; this checkout is compared with itself. On PostgreSQL
  // when DATABASE_URL is set (the guard's database), else on PGlite.
  const root = new URL('..', import.meta.url).pathname;
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'bench/run.ts', '--smoke', `--base=${root}`],
    { cwd: root, timeout: 420_000, maxBuffer: 4 * 1024 * 1024 },
  );
  for (const scenario of [
    'initiate',
    'hub CPU per initiation',
    'audited personal-data read',
    'hub CPU per audited read',
    'one worker draining 200 queued deliveries',
    'hub CPU per delivery',
  ]) {
    assert.match(stdout, new RegExp(`^\\| ${scenario}, before \\([^)]+\\) \\|`, 'm'));
    assert.match(
      stdout,
      new RegExp(
        `^\\| ${scenario}, after \\([^)]+\\) \\|.*\\| \\d+(\\.\\d+)?× before \\|.*guard: (ok|\\*\\*more than)`,
        'm',
      ),
    );
  }
  assert.doesNotMatch(stdout, /start-up|end-to-end|naive/);
  const latest = JSON.parse(readFileSync(new URL('../bench/results/latest.json', import.meta.url), 'utf8'));
  assert.equal(latest.rows.length, 12);
  const rates = latest.rows.filter((row: { errors?: number }) => row.errors !== undefined);
  assert.equal(rates.length, 6);
  for (const row of rates) assert.equal(row.errors, 0, `${row.scenario}: ${row.errors} errors`);
});
