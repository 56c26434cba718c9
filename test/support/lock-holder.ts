/**
 * A process that takes data directory locks on command, for tests that need another (or a
 * killed) owner. Commands, one per stdin line:
 * - `acquire <dir> [<epoch ms>]`: (busy-)waits until that moment, so that several holders start
 *   together, then answers `{"event":"acquired"}` or `{"event":"refused","message":…}`;
 * - `release`: releases what it holds, answers `{"event":"released"}`.
 * `--alloc-mb <n>` first commits that much memory, so that its teardown after SIGKILL takes a while.
 * Prints `{"event":"ready"}` once listening; exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { acquireDirLock } from '../../src/db/lock.js';

const allocIndex = process.argv.indexOf('--alloc-mb');
const ballast = allocIndex < 0 ? null : Buffer.alloc(Number(process.argv[allocIndex + 1]) * 2 ** 20, 1);

function say(message: object): void {
  process.stdout.write(`${JSON.stringify({ ...message, pid: process.pid })}\n`);
}

let release: (() => void) | null = null;
const lines = createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  const [command, dir, at] = line.trim().split(' ');
  if (command === 'acquire' && dir !== undefined) {
    if (at !== undefined) while (Date.now() < Number(at)) {}
    try {
      release = await acquireDirLock(dir);
      say({ event: 'acquired' });
    } catch (err) {
      say({ event: 'refused', name: (err as Error).name, message: (err as Error).message });
    }
  } else if (command === 'release') {
    release?.();
    release = null;
    say({ event: 'released' });
  }
});
lines.on('close', () => process.exit(0));
say({ event: 'ready', ballast: ballast?.length ?? 0 });
