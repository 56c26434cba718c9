/**
 * `travel-rule-hub serve`: config → secrets → database (migrated) → app → listen, plus the
 * delivery worker unless HUB_WORKER=false. SIGTERM/SIGINT close the listener, let in-flight
 * requests finish, stop the worker and close the database.
 */
import { type Config, ConfigError } from '../config.js';
import { databaseLine, openDatabase } from '../db/open.js';
import { generatedKeyLine, masterKeyWarning, resolveSecrets } from '../secrets.js';
import { VERSION } from '../version.js';

export async function serve(config: Config): Promise<void> {
  // A handle of our own until the hub listens. Without one, the event loop runs dry while V8
  // compiles PGlite's WebAssembly, and Node then waits for every background task of V8's to end
  // (its optimizing compiler working on PGlite's functions too) before it runs anything else:
  // the hub would print its address and accept a connection only some time later.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  try {
    await start(config);
  } finally {
    clearInterval(keepAlive);
  }
}

async function start(config: Config): Promise<void> {
  const secrets = resolveSecrets(config);
  // Open the database while the app's modules load: start-up is mostly these two.
  let migrated: string[] = [];
  const opening = openDatabase(config, {
    masterKey: secrets.masterKey,
    previousMasterKeys: secrets.previousMasterKeys,
    onMigrated: (applied) => {
      migrated = applied;
    },
  });
  opening.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"
  const { buildApp } = await import('../app.js');
  const db = await opening;
  const { app, background, trp } = await buildApp({ config, db, secrets });
  await app.listen({ port: config.port, host: config.host }).catch((err: Error) => {
    throw new ConfigError(`HOST/PORT: cannot listen on ${config.host}:${config.port}: ${err.message}`);
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const lines = [
    `Travel Rule Hub ${VERSION} listening on ${base}`,
    `API docs: ${base}/docs (OpenAPI: ${base}/openapi.json)`,
    `Compliance dashboard: ${base}/ui/`,
    databaseLine(config, migrated),
  ];
  if (trp && config.trp) {
    const at = await trp.listen(config.host).catch((err: Error) => {
      throw new ConfigError(
        `HUB_TRP_PORT: cannot listen on ${config.host}:${config.trp?.port}: ${err.message}`,
      );
    });
    lines.push(
      `TRP listener: ${at} (public ${config.trp.publicUrl}${config.trp.mtls ? '' : '; HUB_TRP_MTLS=false: no client certificates'})`,
    );
  }
  const keyLine = generatedKeyLine(secrets, config);
  if (keyLine) lines.push(keyLine);
  if (config.worker) await background.start();
  lines.push(`Delivery worker: ${config.worker ? 'running' : 'off (HUB_WORKER=false)'}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  // Once per start, after the start-up lines (a start that fails says only why).
  const warning = masterKeyWarning(secrets);
  if (warning) process.stderr.write(`${warning}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    try {
      await Promise.all([background.stop(), app.close()]);
    } finally {
      await db.close();
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
