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
 * A verified member as the browser suites name them: `did:web:<name in kebab case>.example`, its
 * webhooks to `<endpointBase>/<first word>` (lower case); `extra` adds fields or overrides these.
 */
export function member(name: string, endpointBase: string, extra: Record<string, unknown> = {}) {
  const words = name.toLowerCase().split(' ');
  return {
    name,
    vaspDid: `did:web:${words.join('-')}.example`,
    travelEndpoint: `${endpointBase}/${words[0]}`,
    organizationType: 'verified',
    ...extra,
  };
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
    const rhein = await hub.createOrg(member('Rhein Bank', receiver.url));
    const alpha = await hub.createOrg(member('Alpha Exchange', receiver.url));
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
