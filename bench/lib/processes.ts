/**
 * Child processes of the bench: every server (hub, baselines, receiver) runs in a process of its
 * own, so that none shares a thread with the load generator. Each is tracked until it exits, and
 * `killAll` ends whatever is left when the bench stops, however it stops.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { HUB_STDERR, ROOT } from './options.js';

const children = new Set<ChildProcess>();

/** Spawns `node <args>` and resolves once its output matches `ready` (within 60 s). */
export function spawnReady(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`timed out starting ${args.join(' ')}: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d;
      const m = out.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m, ms: performance.now() - started });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const log = HUB_STDERR;
    if (log) child.stderr!.on('data', (d: Buffer) => appendFileSync(log, d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${out}`));
    });
  });
}

/**
 * One of the bench's own servers (bench/<script>.ts), which print `READY <port>` (the receiver
 * with `--listeners=N`: `READY <port> <port> …`, one URL each in `urls`).
 */
export async function startBenchServer(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; urls: string[] }> {
  const { child, match } = await spawnReady(
    ['--import', 'tsx', join(ROOT, 'bench', script), ...args],
    env,
    /READY (\d+(?: \d+)*)\n/,
  );
  const urls = match[1]!.split(' ').map((port) => `http://127.0.0.1:${port}`);
  return { child, url: urls[0]!, urls };
}

/** SIGTERM, then SIGKILL if the process has not exited within 15 s. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
  clearTimeout(timer); // else it keeps the bench alive 15 s after its last stop
  if (child.exitCode === null) child.kill('SIGKILL');
}

export function killAll(): void {
  for (const c of children) c.kill('SIGKILL');
}
