/**
 * What a process and the machine spent, from /proc: a process's CPU time and RSS, the machine's
 * idle and total CPU ticks, a main thread's time running and waiting for a CPU, and the CPU of the
 * local PostgreSQL server's processes. Linux only, as the bench is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { PG_URL } from './options.js';

export const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

/** The `p`th percentile of an ascending list (NaN when it is empty). */
export const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export function procStats(pid: number): { cpuMs: number; rssMb: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks = Number(stat[11]) + Number(stat[12]);
    const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return { cpuMs: ticks * 10, rssMb: Number(rss ?? 0) / 1024 };
  } catch {
    return { cpuMs: 0, rssMb: 0 };
  }
}

/** The whole machine's idle (idle + iowait) and total CPU time since boot, in clock ticks. */
function machineTicks(): { idle: number; total: number } {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: ticks[3]! + ticks[4]!, total: ticks.reduce((a, b) => a + b, 0) };
}

/** A process's main thread, from the kernel's scheduler statistics: time running, time runnable but waiting. */
function mainThreadSched(pid: number): { runNs: number; waitNs: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
      .trim()
      .split(' ')
      .map(Number);
    return { runNs: run ?? 0, waitNs: wait ?? 0 };
  } catch {
    return { runNs: 0, waitNs: 0 };
  }
}

/**
 * Where a stretch of time left the machine: its idle and total CPU ticks (all CPUs), and how a
 * server's main thread spent it: ns running, ns runnable but waiting for a CPU (the rest it slept).
 */
export interface Busy {
  wallMs: number;
  idleTicks: number;
  totalTicks: number;
  runNs: number;
  waitNs: number;
}

export function emptyBusy(): Busy {
  return { wallMs: 0, idleTicks: 0, totalTicks: 0, runNs: 0, waitNs: 0 };
}

/** The start of a stretch measured by busySince, for the main thread of `pid`. */
export function busyMark(pid: number) {
  return { pid, at: performance.now(), machine: machineTicks(), thread: mainThreadSched(pid) };
}

export function busySince(mark: ReturnType<typeof busyMark>): Busy {
  const machine = machineTicks();
  const thread = mainThreadSched(mark.pid);
  return {
    wallMs: performance.now() - mark.at,
    idleTicks: machine.idle - mark.machine.idle,
    totalTicks: machine.total - mark.machine.total,
    runNs: thread.runNs - mark.thread.runNs,
    waitNs: thread.waitNs - mark.thread.waitNs,
  };
}

export function addBusy(into: Busy, more: Busy): void {
  for (const k of Object.keys(into) as (keyof Busy)[]) into[k] += more[k];
}

export function busyNote(b: Busy): string {
  const pct = (part: number, whole: number) => round((100 * part) / whole, 0);
  const wallNs = b.wallMs * 1e6;
  return (
    `machine idle ${pct(b.idleTicks, b.totalTicks)} %; ` +
    `main thread running ${pct(b.runNs, wallNs)} %, waiting for a CPU ${pct(b.waitNs, wallNs)} %`
  );
}

/** CPU time of each PostgreSQL server process on this machine (the bench's server is local). */
export function databaseServerCpu(): Map<number, number> {
  const byPid = new Map<number, number>();
  if (!PG_URL) return byPid;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') {
        byPid.set(Number(pid), procStats(Number(pid)).cpuMs);
      }
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid;
}

/** CPU the server's processes used since `before` (a backend that exited meanwhile counts nothing). */
export function databaseServerCpuSince(before: Map<number, number>): number {
  let ms = 0;
  for (const [pid, cpu] of databaseServerCpu()) ms += cpu - (before.get(pid) ?? 0);
  return ms;
}
