/**
 * The demo's step runner: each step prints a live spinner on a terminal, then ✔ or ✘ with its
 * duration and a line of detail; `until` polls for something the hub or a receiver does.
 */

const STEP_TIMEOUT_MS = 15_000;
const tty = process.stdout.isTTY;
export const dim = (s: string) => (tty ? `\x1b[2m${s}\x1b[0m` : s);
export const green = (s: string) => (tty ? `\x1b[32m${s}\x1b[0m` : s);
export const red = (s: string) => (tty ? `\x1b[31m${s}\x1b[0m` : s);
let step = 0;
let total = 0;

/** How many steps the demo has (printed as [n/total]). */
export function plan(steps: number): void {
  total = steps;
}

/** Runs one step with a live spinner (on a terminal), then prints ✔ or ✘ with its duration. */
export async function run<T>(title: string, action: () => Promise<T>, detail?: (r: T) => string): Promise<T> {
  step++;
  const label = `[${String(step).padStart(2)}/${total}] ${title}`;
  const started = performance.now();
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let frame = 0;
  const spinner = tty
    ? setInterval(() => process.stdout.write(`\r${frames[frame++ % frames.length]} ${label}`), 80)
    : undefined;
  try {
    const result = await action();
    const ms = Math.round(performance.now() - started);
    if (spinner) clearInterval(spinner);
    process.stdout.write(`${tty ? '\r' : ''}${green('✔')} ${label} ${dim(`(${ms} ms)`)}\n`);
    if (detail) process.stdout.write(`          ${dim(detail(result))}\n`);
    return result;
  } catch (err) {
    if (spinner) clearInterval(spinner);
    process.stdout.write(
      `${tty ? '\r' : ''}${red('✘')} ${label}\n          ${red(String((err as Error).message))}\n`,
    );
    throw err;
  }
}

export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
