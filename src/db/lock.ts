/**
 * One owner per PGlite data directory. The lock is a file created with O_EXCL holding the
 * owner's pid; a lock whose pid no longer runs (a crash, SIGKILL) is stale and taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

export function acquireDirLock(dir: string): () => void {
  const file = join(dir, 'hub.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(file);
        } catch {
          // already gone: nothing to release
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isRunning(owner)) {
        throw new DataDirLockedError(
          `HUB_DATA_DIR ${dir} is in use by another hub process (pid ${owner}); stop it or use another directory`,
        );
      }
      if (owner === process.pid) {
        throw new DataDirLockedError(`HUB_DATA_DIR ${dir} is already open in this process`);
      }
      unlinkSync(file); // stale: its owner is gone
    }
  }
  throw new DataDirLockedError(`could not lock HUB_DATA_DIR ${dir}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
