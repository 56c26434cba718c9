/**
 * What the browser suites share: a fresh build of the dashboard when its sources changed, and
 * Debian's Chromium driven by playwright-core (never a downloaded browser). Without
 * /usr/bin/chromium the suites are skipped with a notice, or fail with CI=true (.ci/run
 * installs it). Also their page helpers: a fresh watched page, signing in with a key or as a person,
 * screenshots with an accessibility check, and the checks at a suite's end (no key in a URL or
 * the logs, no CSP violation).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Browser,
  type BrowserContextOptions,
  chromium,
  type Page,
  type Request,
  type ViewportSize,
} from 'playwright-core';
import { type Backend, backendSkip } from '../harness.js';

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

/**
 * Why a browser suite cannot run on `backend` here, or false: no Chromium, or (for PostgreSQL) no
 * database. As eachBackend: with CI=true a missing database fails instead.
 */
export async function browserSuiteSkip(backend: Backend, suite: string): Promise<string | false> {
  return browserProblem() ?? (await backendSkip(backend, suite));
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

/** What a browser suite does first: builds the dashboard if need be, and makes SCREENSHOTS. */
export function prepareBrowserSuite(): void {
  ensureDashboardBuilt();
  mkdirSync(SCREENSHOTS, { recursive: true });
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

/** The viewport the suites open their pages at, unless a step says otherwise. */
export const DESKTOP: ViewportSize = { width: 1280, height: 800 };
/** A small phone's viewport (the dashboard suite uses a larger phone of its own). */
export const PHONE: ViewportSize = { width: 375, height: 812 };

/** What a suite collects from every page it opens, to check at its end. */
export interface Watched {
  /** The URL of every request a page made. */
  requested: string[];
  /** The text of every console error a page logged. */
  consoleErrors: string[];
}

export interface PageOptions {
  /** DESKTOP unless given. */
  viewport?: ViewportSize;
  /** More for the browser context, e.g. `permissions`. */
  context?: BrowserContextOptions;
  /** Installs Playwright's clock first, so the page's time stands still (and it does not poll). */
  frozenClock?: boolean;
  /** Accepts every dialog (`confirm`) the page opens; without it Playwright dismisses them. */
  acceptDialogs?: boolean;
  /** Called with each request after its URL is recorded, for a suite's own checks. */
  onRequest?: (request: Request) => void;
}

/**
 * A page in a fresh browser context (its own storage) at en-GB and UTC, whose requests and
 * console errors go into `watched`.
 */
export async function newPage(browser: Browser, watched: Watched, options: PageOptions = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: options.viewport ?? DESKTOP,
    locale: 'en-GB',
    timezoneId: 'UTC',
    ...options.context,
  });
  const page = await context.newPage();
  if (options.frozenClock) await page.clock.install();
  page.on('request', (r) => {
    watched.requested.push(r.url());
    options.onRequest?.(r);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') watched.consoleErrors.push(m.text());
  });
  if (options.acceptDialogs) page.on('dialog', (d) => void d.accept());
  return page;
}

/**
 * Signs `page` in to the dashboard of the hub at `hubUrl` with `key` (behind the sign-in page's
 * "Sign in with an API key" disclosure); resolves once it is in.
 */
export async function signIn(page: Page, hubUrl: string, key: string): Promise<Page> {
  await page.goto(`${hubUrl}/ui/`);
  await page.getByText('Sign in with an API key').click();
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

/** Signs `page` in as a person, with a second-factor code when given; resolves once it is in. */
export async function signInAsPerson(
  page: Page,
  hubUrl: string,
  person: { email: string; password: string; code?: string },
): Promise<Page> {
  if (!page.url().startsWith(`${hubUrl}/ui/`)) await page.goto(`${hubUrl}/ui/`);
  await page.getByLabel('E-mail address').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  if (person.code) await page.getByLabel(/^Code/).fill(person.code);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

/** Asserts that axe-core finds no accessibility problem on the page as it is now. */
export async function axe(page: Page, what: string): Promise<void> {
  assert.deepEqual(await accessibilityProblems(page), [], `accessibility of ${what}`);
}

/** Saves a full-page screenshot as SCREENSHOTS/`name`.png and checks the page's accessibility. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  await axe(page, name);
}

/** How many pixels the page is wider than its viewport (more than 0: it scrolls sideways). */
export function overflowOf(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** The id of the element that has the focus, or ''. */
export function focusedId(page: Page): Promise<string> {
  return page.evaluate(() => document.activeElement?.id ?? '');
}

/** The console errors that tell of a Content-Security-Policy violation. */
export function cspViolations(consoleErrors: string[]): string[] {
  return consoleErrors.filter((e) => /Content.Security.Policy|Refused to/i.test(e));
}

/** Asserts that no key in `keys` is in a requested URL or in the hub's logs. */
export function assertNoKeyLeaked(keys: string[], requested: string[], hub: { allLogs(): string }): void {
  for (const key of keys) {
    assert.ok(!requested.some((url) => url.includes(key)), 'no key in a URL');
    assert.ok(!hub.allLogs().includes(key), 'no key in the logs');
  }
}
