/**
 * One throw-away hub for the demo: an embedded database in its own temporary directory, a random
 * operator and master key, quick retries, the delivery worker running and, when asked, the TRP
 * listener with a certificate from the demo's CA.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import type { TestCa } from '../certs.js';

export interface DemoHub {
  url: string;
  adminKey: string;
  /** The TRP listener's address, when the hub has one. */
  trpUrl?: string;
}

export async function startDemoHub(o: {
  cleanup: (() => Promise<unknown> | unknown)[];
  smtpPort?: number;
  /** A TRP listener with a certificate for `name` from this CA. */
  trp?: { ca: TestCa; name: string };
}): Promise<DemoHub> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trh-demo-'));
  o.cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const masterKey = randomBytes(32);
  const trpPort = o.trp ? await freePort() : undefined;
  const leaf = o.trp?.ca.issue(o.trp.name);
  const config = loadConfig({
    HUB_DATA_DIR: dataDir,
    HUB_ADMIN_KEY: `trh_admin_${randomBytes(24).toString('base64url')}`,
    HUB_MASTER_KEY: masterKey.toString('base64'),
    HUB_ALLOW_PRIVATE_ENDPOINTS: 'true',
    HUB_LOG_LEVEL: 'silent',
    HUB_RETRY_SCHEDULE: '200ms,500ms,1s,1s,1s',
    ...(o.smtpPort === undefined ? {} : { SMTP_URL: `smtp://127.0.0.1:${o.smtpPort}` }),
    ...(o.trp && leaf
      ? {
          HUB_TRP_PORT: String(trpPort),
          HUB_TRP_PUBLIC_URL: `https://127.0.0.1:${trpPort}`,
          HUB_TRP_TLS_CERT: leaf.certFile,
          HUB_TRP_TLS_KEY: leaf.keyFile,
          HUB_TRP_TLS_CA: o.trp.ca.certFile,
        }
      : {}),
  });
  const db = await openPglite(dataDir);
  o.cleanup.unshift(() => db.close());
  await migrate(db, { masterKey });
  const built = await buildApp({
    config,
    db,
    secrets: { adminKey: config.adminKey!, masterKey, generatedAdminKey: false },
  });
  const url = await built.app.listen({ port: 0, host: '127.0.0.1' });
  const trpUrl = built.trp ? await built.trp.listen('127.0.0.1') : undefined;
  await built.background.start();
  o.cleanup.unshift(async () => {
    await built.background.stop();
    await built.app.close();
  });
  return { url, adminKey: config.adminKey!, ...(trpUrl ? { trpUrl } : {}) };
}

/** A port free right now on 127.0.0.1 (the TRP listener's public URL must be known before it listens). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
