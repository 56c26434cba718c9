import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

it('runs `npm run demo` to the end: MAIN, BASIC, NOTIFY, the sunrise path and the TRP bridge, every step passing', async () => {
  const { stdout } = await run('npm', ['run', '--silent', 'demo'], {
    cwd: new URL('..', import.meta.url).pathname,
    timeout: 120_000,
  });
  const passed = stdout.match(/^✔ \[\s*\d+\/29\]/gm) ?? [];
  assert.equal(passed.length, 29, stdout);
  assert.doesNotMatch(stdout, /✘/);
  assert.match(stdout, /B receives `confirmed-data`/);
  assert.match(stdout, /decrypted: what A sent, with both VASPs filled in/);
  assert.match(stdout, /Travel rule notice/);
  assert.match(stdout, /C receives `received`; A receives `beneficiary-joined`/);
  assert.match(stdout, /D receives `received` through the bridge and decrypts the personal data/);
  assert.match(stdout, /A receives `approved` with D’s address/);
  assert.match(stdout, /Demo complete: every step passed\./);
});
