/**
 * `travel-rule-hub worker`: only the delivery worker, no HTTP listener. For scale-out on
 * PostgreSQL: run API processes with HUB_WORKER=false and as many of these as the delivery
 * load needs; they share the outbox through FOR UPDATE SKIP LOCKED. The app is built (not
 * listened on) so the worker gets exactly the services, logger and settings `serve` has.
 */
import { buildApp, VERSION } from '../app.js';
import type { Config } from '../config.js';
import { databaseLine, openDatabase } from '../db/open.js';
import { generatedKeyLine, masterKeyWarning, resolveSecrets } from '../secrets.js';

export async function runWorker(config: Config): Promise<void> {
  const secrets = resolveSecrets(config);
  let migrated: string[] = [];
  const db = await openDatabase(config, {
    masterKey: secrets.masterKey,
    previousMasterKeys: secrets.previousMasterKeys,
    onMigrated: (applied) => {
      migrated = applied;
    },
  });
  const { app, background } = await buildApp({ config, db, secrets });
  await background.start();
  const keyLine = generatedKeyLine(secrets, config);
  process.stdout.write(
    `Travel Rule Hub ${VERSION} delivery worker running (no HTTP listener)\n` +
      `${databaseLine(config, migrated)}\n` +
      `E-mail: ${config.smtpUrl ? 'SMTP configured' : 'no SMTP_URL; NOTIFY e-mails stay in the outbox'}\n` +
      (keyLine ? `${keyLine}\n` : ''),
  );
  const warning = masterKeyWarning(secrets);
  if (warning) process.stderr.write(`${warning}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'worker shutting down');
    try {
      await background.stop();
      await app.close();
    } finally {
      await db.close();
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
