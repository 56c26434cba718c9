import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

it('runs `npm run demo` to the end: MAIN, BASIC and NOTIFY, every step passing', async () => {
  const { stdout } = await run('npm', ['run', '--silent', 'demo'], {
    cwd: new URL('..', import.meta.url).pathname,
    timeout: 120_000,
  });
  const passed = stdout.match(/^✔ \[\s*\d+\/16\]/gm) ?? [];
  assert.equal(passed.length, 16, stdout);
  assert.doesNotMatch(stdout, /✘/);
  assert.match(stdout, /B receives `confirmed-data`/);
  assert.match(stdout, /decrypted, equal to what A sent/);
  assert.match(stdout, /Travel rule notice/);
  assert.match(stdout, /Demo complete: every step passed\./);
});
