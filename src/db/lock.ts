/**
 * One owner per PGlite data directory: `hub.lock` in it names the owning process by its
 * identity — pid, start time (clock ticks after boot, /proc/<pid>/stat field 22) and boot id —
 * so that a pid the kernel has since handed to another process (a container restarts with the
 * same pids) does not keep the directory locked. Files written before identities were recorded
 * hold only a pid and are judged by that pid alone.
 *
 * An existing lock is
 * - this process's own (same pid, start time and boot id): refused;
 * - stale (owner gone, a zombie, from an earlier boot, or its pid now runs another process):
 *   taken over;
 * - held by a dying owner (SIGKILL pending, exiting, or its threads still being torn down):
 *   waited for, up to 10 s, then taken over;
 * - otherwise held by a live hub: refused.
 * Without /proc (not Linux) an owner is judged by `kill(pid, 0)` only.
 *
 * Files, all in the data directory:
 * - `hub.lock`: the lock. It only ever appears complete: it is a hard link to a fully written
 *   staging file, and link(2) fails if the name exists, so at most one creator succeeds.
 * - `hub.lock.<token>.new`: a starter's staging file (its identity and a random token that
 *   names this one lock instance).
 * - `hub.lock.<token>.claim.<n>`: a claim to remove the stale lock with that token, a hard link
 *   to the claimant's staging file (so it names the claimant).
 *
 * Take-over invariant: a lock is removed only by its live owner (release) or by the holder of the
 * newest claim on its token, created with link(2) (exclusive) after judging every earlier
 * claimant dead. So at any time at most one process may remove a given stale lock, and it
 * re-reads `hub.lock` after claiming: if the token still matches, the file cannot change before
 * its unlink (its owner is dead; nobody else may remove it). Claims on a token are deleted only
 * once that lock is gone from `hub.lock` for good (a token is never reused), after which any
 * claimant finds another token there and leaves it alone. Two starters can thus never both
 * hold the lock: each holder's own link(2) created `hub.lock`, and nobody removes a live
 * holder's file.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

const LOCK = 'hub.lock';
/** How long a dying owner (or another starter's take-over in progress) is waited for. */
const WAIT_MS = 10_000;
const POLL_MS = 20;
/** An unreadable lock this young may still be being written by an older hub (open, then write). */
const UNREADABLE_GRACE_MS = 2_000;

/** task->flags bits (include/linux/sched.h), stable kernel ABI as exposed in /proc. */
const PF_EXITING = 0x4;
const PF_SIGNALED = 0x400;
/** Bit of SIGKILL (9) in the SigPnd/ShdPnd masks of /proc/<pid>/status. */
const SIGKILL_BIT = 1n << 8n;

interface Identity {
  pid: number;
  /** null where /proc is unavailable. */
  start: string | null;
  boot: string | null;
  token: string;
}

/** What a lock (or claim, or staging) file says about its writer. */
interface Holder {
  /** null: unreadable content (an older hub writes the pid after creating the file). */
  pid: number | null;
  start: string | null;
  boot: string | null;
  token: string;
  /** Only a pid was recorded (an older hub, or unreadable content). */
  legacy: boolean;
  ageMs: number;
}

type Verdict = 'self' | 'live' | 'wait' | 'stale';

/**
 * Takes the data directory's lock, waiting for a dying predecessor; resolves to the release
 * function (idempotent; removes the lock only while it is still this one).
 */
export async function acquireDirLock(dir: string): Promise<() => void> {
  const path = join(dir, LOCK);
  const me = identity();
  const staged = join(dir, `${LOCK}.${me.token}.new`);
  const record = { pid: me.pid, start: me.start, boot: me.boot, token: me.token };
  writeFileSync(staged, `${JSON.stringify(record)}\n`, { flag: 'wx', mode: 0o600 });
  try {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      try {
        linkSync(staged, path);
        break;
      } catch (err) {
        if (errno(err) !== 'EEXIST') throw err;
      }
      const held = readHolder(path);
      if (held === null) {
        // Released or removed meanwhile: try again (a name that exists but cannot be opened, such
        // as a dangling symlink, would otherwise loop for ever).
        if (Date.now() >= deadline) throw new DataDirLockedError(`HUB_DATA_DIR ${dir}: cannot read ${path}`);
        await sleep(1);
        continue;
      }
      const verdict = judge(held, me);
      if (verdict === 'self') {
        throw new DataDirLockedError(`HUB_DATA_DIR ${dir} is already open in this process`);
      }
      if (verdict === 'live') {
        throw new DataDirLockedError(
          `HUB_DATA_DIR ${dir} is in use by another hub process (pid ${held.pid}); stop it or use another directory`,
        );
      }
      const expired = Date.now() >= deadline;
      if (verdict === 'wait' && !expired) {
        await sleep(POLL_MS);
        continue;
      }
      // Stale, or dying for longer than we wait: a dying process runs no more code of its own.
      const claimant = takeOver(dir, path, held, staged, me);
      if (claimant !== null) {
        if (expired) {
          throw new DataDirLockedError(
            `HUB_DATA_DIR ${dir}: its stale lock is being taken over by another process (pid ${claimant.pid}); try again`,
          );
        }
        await sleep(POLL_MS);
      }
    }
  } finally {
    unlinkQuietly(staged); // hub.lock (if ours) and any claim are links of their own
  }
  collectGarbage(dir, me);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Nobody removes a live owner's lock, so if it still is ours it stays ours until the unlink.
    if (readHolder(path)?.token === me.token) unlinkQuietly(path);
  };
}

/**
 * Removes the stale lock `held` if this process wins the claim on it. Returns null when the lock
 * is gone (removed here or by someone else: try to create it again), or the identity of a live
 * claimant whose take-over is under way (wait for it).
 */
function takeOver(dir: string, path: string, held: Holder, staged: string, me: Identity): Holder | null {
  const prefix = `${LOCK}.${held.token}.claim.`;
  const numbers = claimsOn(dir, prefix);
  const newest = numbers.length === 0 ? -1 : Math.max(...numbers);
  if (newest >= 0) {
    const claimant = readHolder(join(dir, `${prefix}${newest}`));
    if (claimant === null) return null; // claims are deleted once the lock is gone
    if (judge(claimant, me) !== 'stale') return claimant;
  }
  try {
    linkSync(staged, join(dir, `${prefix}${newest + 1}`));
  } catch (err) {
    if (errno(err) !== 'EEXIST') throw err;
    const claimant = readHolder(join(dir, `${prefix}${newest + 1}`));
    return claimant ?? null;
  }
  // Sole live claimant from here. If anything throws before the lock is gone, the claim stays:
  // deleting it while the lock may still be in place would let two claimants act at once.
  if (readHolder(path)?.token === held.token) unlinkQuietly(path);
  for (const n of claimsOn(dir, prefix)) unlinkQuietly(join(dir, `${prefix}${n}`));
  return null;
}

function claimsOn(dir: string, prefix: string): number[] {
  const numbers: number[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const n = Number(name.slice(prefix.length));
    if (Number.isSafeInteger(n) && n >= 0) numbers.push(n);
  }
  return numbers;
}

/**
 * Deletes what crashed starters left: claims on tokens other than ours (while we hold the lock,
 * those locks are gone for good) and staging files of processes no longer running.
 */
function collectGarbage(dir: string, me: Identity): void {
  try {
    for (const name of readdirSync(dir)) {
      const match = /^hub\.lock\.([0-9a-z]+)\.(new|claim\.\d+)$/.exec(name);
      if (match === null || match[1] === me.token) continue;
      const file = join(dir, name);
      if (match[2] === 'new') {
        const writer = readHolder(file);
        if (writer === null || judge(writer, me) !== 'stale') continue;
      }
      unlinkQuietly(file);
    }
  } catch {
    // best effort: leftovers are only clutter, never mistaken for a lock
  }
}

function judge(held: Holder, self: Identity): Verdict {
  if (held.pid === null || held.pid <= 0) return held.ageMs < UNREADABLE_GRACE_MS ? 'wait' : 'stale';
  if (held.boot !== null && self.boot !== null && held.boot !== self.boot) return 'stale'; // written before a reboot
  if (held.pid === self.pid) {
    // This process never writes a pid-only file: one naming our pid is a predecessor's.
    if (held.legacy) return 'stale';
    if (held.start !== null && self.start !== null) return held.start === self.start ? 'self' : 'stale';
    return 'self';
  }
  switch (inspect(held.pid, held.start)) {
    case 'gone':
    case 'reused':
      return 'stale';
    case 'dying':
      return 'wait';
    case 'running':
      return 'live';
  }
}

let procfs: boolean | undefined;

function identity(): Identity {
  procfs ??= readStat('/proc/self/stat') !== null;
  const token = randomBytes(12).toString('hex');
  if (!procfs) return { pid: process.pid, start: null, boot: null, token };
  let boot: string | null = null;
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    // no boot id: start times alone tell processes apart within one boot
  }
  return { pid: process.pid, start: readStat('/proc/self/stat')?.start ?? null, boot, token };
}

/**
 * What runs under `pid` now: 'reused' when its start time is not the recorded one. 'gone' also
 * covers a zombie whose threads have all exited (it holds no files; only its parent's wait is
 * missing). 'dying' is a process killed or exiting whose teardown is still under way.
 */
function inspect(pid: number, start: string | null): 'gone' | 'reused' | 'dying' | 'running' {
  if (!procfs) return pidExists(pid) ? 'running' : 'gone';
  const leader = readStat(`/proc/${pid}/stat`);
  // Missing from /proc yet signalable: hidden from us (hidepid); it cannot be verified, so it counts as live.
  if (leader === null) return pidExists(pid) ? 'running' : 'gone';
  if (start !== null && leader.start !== start) return 'reused';
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    tids = [String(pid)];
  }
  // The leader turns zombie as soon as it exits, while other threads may still be exiting.
  const finished = (s: Stat | null) => s === null || s.state === 'Z' || s.state === 'X' || s.state === 'x';
  const allFinished = tids.every((tid) =>
    finished(tid === String(pid) ? leader : readStat(`/proc/${pid}/task/${tid}/stat`)),
  );
  if (allFinished) return 'gone';
  if (finished(leader) || (leader.flags & (PF_EXITING | PF_SIGNALED)) !== 0 || killPending(pid))
    return 'dying';
  return 'running';
}

interface Stat {
  state: string;
  flags: number;
  start: string;
}

function readStat(file: string): Stat | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null; // ENOENT/ESRCH: the task is gone
  }
  // Field 2 (comm) is in parentheses and may itself contain spaces and ')'; every field after the
  // last ')' is a plain number or letter. Split from there: field 3 (state) is index 0.
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(' ');
  const state = fields[0];
  const flags = Number(fields[6]); // field 9
  const start = fields[19]; // field 22
  if (state === undefined || start === undefined || !Number.isFinite(flags)) return null;
  return { state, flags, start };
}

/**
 * SIGKILL queued and not yet acted on. kill(2) marks it in every thread and in the shared set
 * (ShdPnd), which keeps it until the process is gone.
 */
function killPending(pid: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return false;
  }
  for (const key of ['SigPnd', 'ShdPnd']) {
    const hex = new RegExp(`^${key}:\\s*([0-9a-f]+)$`, 'm').exec(status)?.[1];
    if (hex !== undefined && (BigInt(`0x${hex}`) & SIGKILL_BIT) !== 0n) return true;
  }
  return false;
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errno(err) === 'EPERM';
  }
}

/** The lock (or claim, or staging file) at `file`, or null if there is none. */
function readHolder(file: string): Holder | null {
  let text: string;
  let ino: bigint;
  let mtimeNs: bigint;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    ino = st.ino;
    mtimeNs = st.mtimeNs;
    text = readFileSync(fd, 'utf8').trim();
  } finally {
    closeSync(fd);
  }
  const ageMs = Date.now() - Number(mtimeNs / 1_000_000n);
  // Pid-only files carry no token; their inode and mtime name that one file instead.
  const fileToken = `l${ino.toString(36)}m${mtimeNs.toString(36)}`;
  if (/^\d+$/.test(text)) {
    return { pid: Number(text), start: null, boot: null, token: fileToken, legacy: true, ageMs };
  }
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    const str = (x: unknown) => (typeof x === 'string' && x !== '' ? x : null);
    if (Number.isSafeInteger(v.pid) && typeof v.token === 'string' && /^[0-9a-f]+$/.test(v.token)) {
      return {
        pid: v.pid as number,
        start: str(v.start),
        boot: str(v.boot),
        token: v.token,
        legacy: false,
        ageMs,
      };
    }
  } catch {
    // unreadable: judged by age below
  }
  return { pid: null, start: null, boot: null, token: fileToken, legacy: true, ageMs };
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if (errno(err) !== 'ENOENT') throw err;
  }
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}
