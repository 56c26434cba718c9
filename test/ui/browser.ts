/**
 * What the browser suites share: a fresh build of the dashboard when its sources changed, and
 * Debian's Chromium driven by playwright-core (never a downloaded browser). Without
 * /usr/bin/chromium the suites are skipped with a notice, or fail with CI=true (.ci/run
 * installs it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const ROOT = new URL('../..', import.meta.url).pathname;
/**
 * Where the suites save screenshots: docs/screenshots (shown in README) with
 * UPDATE_SCREENSHOTS=true (`npm run screenshots`), else a temporary directory, so that a test
 * run does not rewrite tracked files.
 */
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === 'true'
    ? join(ROOT, 'docs', 'screenshots')
    : join(tmpdir(), 'trh-screenshots');

/** Why the browser suites cannot run here, or null. */
export function browserProblem(): string | null {
  if (existsSync(CHROMIUM)) return null;
  const problem = `${CHROMIUM} is missing (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`${problem} (CI=true: a missing browser fails)`);
  process.stderr.write(`\n!! SKIPPING the dashboard browser suites: ${problem}\n`);
  return problem;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

function newestMtime(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((f) => newestMtime(join(path, f))));
}

/** Builds ui/dist unless it is newer than every source of the page (ui/ and the typed client). */
export function ensureDashboardBuilt(): void {
  const built = join(ROOT, 'ui', 'dist', 'index.html');
  const sources = ['ui/src', 'ui/public', 'ui/index.html', 'ui/vite.config.ts', 'src/client'].map((p) =>
    join(ROOT, p),
  );
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(...sources.map(newestMtime))) return;
  execFileSync(
    join(ROOT, 'node_modules', '.bin', 'vite'),
    ['build', '--config', 'ui/vite.config.ts', '--logLevel', 'warn'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

let axeSource: string | undefined;

/**
 * WCAG 2 A/AA problems axe-core finds on the page as it is now (labels, contrast, headings,
 * landmarks, ARIA), as "rule: element" lines. Injected through the DevTools protocol, which the
 * page's CSP does not govern.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource);
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] })
       .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) })))`,
  )) as { id: string; impact: string; nodes: string[] }[];
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n}`));
}
