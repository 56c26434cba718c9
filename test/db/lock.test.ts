/**
 * The data directory lock against real processes: dead, zombie, reused, live and SIGKILLed
 * owners, and several starters taking over one stale lock at once. Linux only (reads /proc).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireDirLock, DataDirLockedError } from '../../src/db/lock.js';

const linux = existsSync('/proc/self/stat');
const HOLDER = new URL('../support/lock-holder.ts', import.meta.url).pathname;

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'trh-lock-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** State (field 3) and start time (field 22) of a process, parsed after the last ')'. */
function procStat(pid: number): { state: string; start: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, start: fields[19]! };
  } catch {
    return null;
  }
}

const bootId = linux ? readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : '';

/** A lock file as a hub writes it, naming `pid` with the given start time and boot id. */
function writeLock(dir: string, pid: number, start: string | null, boot = bootId): void {
  const token = Math.floor(Math.random() * 2 ** 48).toString(16);
  writeFileSync(join(dir, 'hub.lock'), `${JSON.stringify({ pid, start, boot, token })}\n`);
}

function lockPid(dir: string): number {
  return (JSON.parse(readFileSync(join(dir, 'hub.lock'), 'utf8')) as { pid: number }).pid;
}

/** A pid that ran and has exited (and been reaped). */
function deadPid(): number {
  const done = spawnSync('true');
  assert.ok(done.pid > 0);
  assert.equal(procStat(done.pid), null);
  return done.pid;
}

async function assertTakesOver(dir: string): Promise<void> {
  const release = await acquireDirLock(dir);
  assert.equal(lockPid(dir), process.pid);
  release();
  assert.deepEqual(readdirSync(dir), []);
}

interface HolderEvent {
  event: 'ready' | 'acquired' | 'refused' | 'released';
  pid: number;
  message?: string;
}

/** test/support/lock-holder.ts as a child process, driven line by line. */
class LockHolder {
  private readonly events: HolderEvent[] = [];
  private wake: (() => void) | null = null;

  private constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      this.events.push(JSON.parse(line) as HolderEvent);
      this.wake?.();
    });
    child.once('exit', () => this.wake?.());
  }

  static async start(args: string[] = []): Promise<LockHolder> {
    const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const holder = new LockHolder(child);
    assert.equal((await holder.next()).event, 'ready');
    return holder;
  }

  get pid(): number {
    return this.child.pid!;
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  async next(timeoutMs = 20_000): Promise<HolderEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.length === 0) {
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        throw new Error('lock holder exited');
      if (Date.now() > deadline) throw new Error('lock holder did not answer');
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 100);
      });
    }
    return this.events.shift()!;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    await exited;
  }
}

describe('data directory lock', { skip: !linux && 'reads /proc (Linux)', timeout: 60_000 }, () => {
  test('a fresh directory is locked by its identity and release frees it', async () => {
    const dir = freshDir();
    const release = await acquireDirLock(dir);
    const owner = JSON.parse(readFileSync(join(dir, 'hub.lock'), 'utf8')) as Record<string, unknown>;
    assert.equal(owner.pid, process.pid);
    assert.equal(owner.start, procStat(process.pid)!.start);
    assert.equal(owner.boot, bootId);
    assert.deepEqual(readdirSync(dir), ['hub.lock']);
    release();
    release();
    assert.deepEqual(readdirSync(dir), []);
    (await acquireDirLock(dir))();
  });

  test('a second acquire in the same process is refused', async () => {
    const dir = freshDir();
    const release = await acquireDirLock(dir);
    const before = readFileSync(join(dir, 'hub.lock'), 'utf8');
    await assert.rejects(acquireDirLock(dir), (err: Error) => {
      assert.ok(err instanceof DataDirLockedError);
      assert.match(err.message, /is already open in this process/);
      return true;
    });
    assert.equal(readFileSync(join(dir, 'hub.lock'), 'utf8'), before);
    assert.deepEqual(readdirSync(dir), ['hub.lock']);
    release();
  });

  test('release leaves a lock that is no longer its own', async () => {
    const dir = freshDir();
    const release = await acquireDirLock(dir);
    writeLock(dir, process.ppid, procStat(process.ppid)!.start);
    release();
    assert.equal(lockPid(dir), process.ppid);
  });

  test('a lock left by a dead process is taken over (with or without its identity)', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'hub.lock'), String(deadPid())); // as older hubs wrote it
    await assertTakesOver(dir);
    writeLock(dir, deadPid(), '12345');
    await assertTakesOver(dir);
  });

  test('a lock whose owner is a zombie is taken over', async (t) => {
    const dir = freshDir();
    // The background child exits once its parent has become `sleep 30`, which never waits for
    // children (the shell might have reaped it had it exited before the exec): a zombie.
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.after(() => parent.kill('SIGKILL'));
    const [line] = await new Promise<string[]>((resolve) =>
      createInterface({ input: parent.stdout! }).once('line', (l) => resolve([l])),
    );
    const zombie = Number(line);
    let stat = procStat(zombie);
    for (let i = 0; i < 200 && stat?.state !== 'Z'; i++) {
      await sleep(10);
      stat = procStat(zombie);
    }
    assert.equal(stat?.state, 'Z', `pid ${zombie} should be a zombie`);
    writeLock(dir, zombie, stat.start);
    await assertTakesOver(dir);
    assert.equal(procStat(zombie)?.state, 'Z', 'still unreaped: judged as a zombie, not as gone');
  });

  test("a lock naming this process's pid with another start time (container restart) is taken over", async () => {
    const dir = freshDir();
    const mine = procStat(process.pid)!.start;
    writeLock(dir, process.pid, String(BigInt(mine) - 1n));
    await assertTakesOver(dir);
    writeFileSync(join(dir, 'hub.lock'), String(process.pid)); // pid only: never written by this process
    await assertTakesOver(dir);
  });

  test("a lock naming the parent's pid is taken over unless it is the parent itself", async () => {
    const dir = freshDir();
    const parent = procStat(process.ppid)!;
    writeLock(dir, process.ppid, String(BigInt(parent.start) + 1n));
    await assertTakesOver(dir);
    writeLock(dir, process.ppid, parent.start, '00000000-0000-4000-8000-000000000000'); // an earlier boot
    await assertTakesOver(dir);
    writeLock(dir, process.ppid, parent.start);
    await assert.rejects(
      acquireDirLock(dir),
      new RegExp(`is in use by another hub process \\(pid ${process.ppid}\\)`),
    );
  });

  test("start times are read after the last ')' of /proc/<pid>/stat", async (t) => {
    const dir = freshDir();
    // The command name (field 2) comes from the executable's file name: make it look like fields.
    const odd = join(dir, 'a) Z 1 (b');
    symlinkSync('/bin/sleep', odd);
    const child = spawn(odd, ['30'], { stdio: 'ignore' });
    t.after(() => child.kill('SIGKILL'));
    const comm = () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').includes('(a) Z 1 (b)');
    for (let i = 0; i < 200 && !comm(); i++) await sleep(10);
    assert.ok(comm(), 'the child runs under the odd name');
    const stat = procStat(child.pid!)!;
    writeLock(dir, child.pid!, stat.start);
    await assert.rejects(acquireDirLock(dir), new RegExp(`\\(pid ${child.pid}\\)`));
    writeLock(dir, child.pid!, String(BigInt(stat.start) + 1n));
    const release = await acquireDirLock(dir);
    release();
  });

  test('a lock held by another live process is refused, naming it', async () => {
    const dir = freshDir();
    const holder = await LockHolder.start();
    try {
      holder.send(`acquire ${dir}`);
      assert.equal((await holder.next()).event, 'acquired');
      await assert.rejects(acquireDirLock(dir), (err: Error) => {
        assert.ok(err instanceof DataDirLockedError);
        assert.equal(
          err.message,
          `HUB_DATA_DIR ${dir} is in use by another hub process (pid ${holder.pid}); stop it or use another directory`,
        );
        return true;
      });
      holder.send('release');
      assert.equal((await holder.next()).event, 'released');
      await assertTakesOver(dir);
    } finally {
      await holder.stop();
    }
  });

  test('a restart right after kill -9 of the owner waits for its teardown and takes over', async (t) => {
    for (let round = 0; round < 3; round++) {
      const dir = freshDir();
      const holder = await LockHolder.start(['--alloc-mb', '400']);
      holder.send(`acquire ${dir}`);
      assert.equal((await holder.next()).event, 'acquired');
      holder.child.kill('SIGKILL');
      const seen = procStat(holder.pid)?.state ?? 'gone';
      const started = performance.now();
      const release = await acquireDirLock(dir);
      const ms = performance.now() - started;
      t.diagnostic(`round ${round}: owner was ${seen} at SIGKILL + 0; lock taken after ${ms.toFixed(1)} ms`);
      assert.ok(ms < 10_000);
      assert.equal(lockPid(dir), process.pid);
      release();
    }
  });

  test('several processes taking over one stale lock at once: exactly one wins', async (t) => {
    const holders = await Promise.all([0, 1, 2, 3].map(() => LockHolder.start()));
    try {
      const stale: Array<(dir: string) => void> = [
        (dir) => writeLock(dir, deadPid(), '1'),
        (dir) => writeFileSync(join(dir, 'hub.lock'), String(deadPid())),
        (dir) => writeLock(dir, process.pid, '1'), // a live pid, reused
      ];
      const wins = new Map<number, number>();
      for (let round = 0; round < 15; round++) {
        const dir = freshDir();
        stale[round % stale.length]!(dir);
        const at = Date.now() + 100;
        for (const holder of holders) holder.send(`acquire ${dir} ${at}`);
        const answers = await Promise.all(holders.map((holder) => holder.next()));
        const winners = answers.filter((a) => a.event === 'acquired');
        assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify(answers)}`);
        const winner = winners[0]!.pid;
        wins.set(winner, (wins.get(winner) ?? 0) + 1);
        for (const loser of answers.filter((a) => a.event !== 'acquired')) {
          assert.match(loser.message!, new RegExp(`in use by another hub process \\(pid ${winner}\\)`));
        }
        assert.equal(lockPid(dir), winner);
        assert.deepEqual(readdirSync(dir), ['hub.lock'], 'no claims or staging files left behind');
        const holder = holders.find((h) => h.pid === winner)!;
        holder.send('release');
        assert.equal((await holder.next()).event, 'released');
        assert.deepEqual(readdirSync(dir), []);
      }
      t.diagnostic(`winners per holder: ${JSON.stringify([...wins.values()])}`);
    } finally {
      await Promise.all(holders.map((holder) => holder.stop()));
    }
  });
});
