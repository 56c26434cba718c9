/**
 * The scene several browser suites start from: a hub that e-mails a real SMTP sink and serves
 * the dashboard at a loopback public URL (plain HTTP, so Chromium sends its session cookie back),
 * Chromium, a webhook receiver, and two verified members, Rhein Bank and Alpha Exchange, whose
 * webhooks go to the receiver's `/rhein` and `/alpha`.
 */
import type { Browser } from 'playwright-core';
import { type Backend, type OrgFixture, startHub, type TestHub } from '../harness.js';
import { Receiver } from '../support/receiver.js';
import { SmtpSink } from '../support/smtp.js';
import { launchChromium, prepareBrowserSuite } from './browser.js';

/** Loopback and plain HTTP: the hub's cookie is not `Secure`, so Chromium sends it back here. */
export const PUBLIC_URL = 'http://localhost';

export interface Members {
  hub: TestHub;
  browser: Browser;
  smtp: SmtpSink;
  receiver: Receiver;
  rhein: OrgFixture;
  alpha: OrgFixture;
}

/**
 * Starts the scene, with `env` added to the hub's settings; if a part fails, closes the parts that
 * started and rethrows.
 */
export async function startMembers(backend: Backend, env: Record<string, string> = {}): Promise<Members> {
  prepareBrowserSuite();
  const smtp = await SmtpSink.start();
  const started: Partial<Members> = { smtp };
  const parts = [
    startHub(backend, { SMTP_URL: smtp.url, HUB_PUBLIC_URL: PUBLIC_URL, ...env }).then(
      (h) => (started.hub = h),
    ),
    launchChromium().then((b) => (started.browser = b)),
    Receiver.start().then((r) => (started.receiver = r)),
  ] as const;
  try {
    const [hub, browser, receiver] = await Promise.all(parts);
    const member = (name: string, host: string, path: string) =>
      hub.createOrg({
        name,
        vaspDid: `did:web:${host}`,
        travelEndpoint: `${receiver.url}/${path}`,
        organizationType: 'verified',
      });
    const rhein = await member('Rhein Bank', 'rhein-bank.example', 'rhein');
    const alpha = await member('Alpha Exchange', 'alpha-exchange.example', 'alpha');
    return { hub, browser, smtp, receiver, rhein, alpha };
  } catch (err) {
    await Promise.allSettled(parts); // the parts still starting get closed too
    await stopMembers(started);
    throw err;
  }
}

/** Closes what `startMembers` started (as far as it got). */
export async function stopMembers(m: Partial<Members>): Promise<void> {
  await m.browser?.close();
  await m.receiver?.close();
  await m.hub?.destroy();
  await m.smtp?.close();
}
