#!/usr/bin/env node
/**
 * The `travel-rule-hub` command: run the hub, migrate, and operate the directory from a
 * shell. Operator commands talk to the database directly (so they work before the first
 * start); on the embedded database stop the hub first, or use the HTTP operator API.
 * Each command loads what it needs when it runs: `serve` opens the database while the app's
 * code loads, and no command pays for another's modules.
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { DataDirLockedError } from '../db/lock.js';
import { openDatabase } from '../db/open.js';
import type { DirectoryService } from '../directory/service.js';
import { UUID } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import { generatedKeyLine, resolveSecrets } from '../secrets.js';
import { VERSION } from '../version.js';
import { registerParticipantCommands } from './participant.js';

const program = new Command('travel-rule-hub').version(VERSION).description('Travel Rule Hub');

program
  .command('serve', { isDefault: true })
  .description('run the API (and the delivery worker unless HUB_WORKER=false)')
  .action(async () => (await import('./serve.js')).serve(loadConfig()));

program
  .command('worker')
  .description('run only the delivery worker, without HTTP (scale-out on PostgreSQL)')
  .action(async () => (await import('./worker.js')).runWorker(loadConfig()));

program
  .command('migrate')
  .description('apply pending database migrations and exit')
  .action(() =>
    withDirectory(
      async (db, _directory, masterKey) => {
        const { migrate } = await import('../db/migrate.js');
        const applied = await migrate(db, { masterKey });
        print({ applied });
      },
      { migrate: false },
    ),
  );

const org = program.command('org').description('manage organizations (operator)');
org
  .command('create')
  .requiredOption('--name <name>', 'display name')
  .requiredOption('--did <did>', 'the VASP DID, e.g. did:web:vasp.example')
  .option('--endpoint <url>', 'travel endpoint (base URL for webhooks)')
  .option('--public-key <file>', 'PEM file with the public key')
  .option('--verified', 'mark as verified by the operator')
  .description('register an organization; prints its API key and webhook secret once')
  .action((o: { name: string; did: string; endpoint?: string; publicKey?: string; verified?: boolean }) =>
    withDirectory(async (_db, directory) => {
      print(
        await directory.create(
          {
            name: o.name,
            vaspDid: o.did,
            travelEndpoint: o.endpoint,
            publicKey: o.publicKey ? readFileSync(o.publicKey, 'utf8') : undefined,
            organizationType: o.verified ? 'verified' : 'unverified',
          },
          'operator',
        ),
      );
    }),
  );
org
  .command('list')
  .description('list organizations')
  .action(() => withDirectory(async (_db, directory) => print({ organizations: await directory.list({}) })));
org
  .command('verify')
  .argument('<id>', 'organization id', uuidArgument)
  .option('--revoke', 'set the organization back to unverified')
  .description('mark an organization as verified by the operator')
  .action((id: string, o: { revoke?: boolean }) =>
    withDirectory(async (_db, directory) =>
      print(
        await directory.update(id, { organizationType: o.revoke ? 'unverified' : 'verified' }, 'operator'),
      ),
    ),
  );

const key = program.command('key').description('manage API keys (operator)');
key
  .command('create')
  .argument('<orgId>', 'organization id', uuidArgument)
  .description('issue another API key for an organization (printed once)')
  .action((orgId: string) =>
    withDirectory(async (_db, directory) => print(await directory.createApiKey(orgId, 'operator'))),
  );
key
  .command('revoke')
  .argument('<keyId>', 'API key id', uuidArgument)
  .description('revoke an API key')
  .action((keyId: string) =>
    withDirectory(async (_db, directory) => {
      await directory.revokeApiKey(keyId, 'operator');
      print({ revoked: keyId });
    }),
  );

registerParticipantCommands(program);

async function withDirectory(
  fn: (db: Database, directory: DirectoryService, masterKey: Buffer) => Promise<void>,
  options: { migrate?: boolean } = {},
) {
  const config = loadConfig();
  const secrets = resolveSecrets(config);
  // On stderr: stdout is the command's JSON.
  const keyLine = generatedKeyLine(secrets, config);
  if (keyLine) process.stderr.write(`${keyLine}\n`);
  const db = await openDatabase(config, { ...options, masterKey: secrets.masterKey });
  try {
    const { DirectoryService } = await import('../directory/service.js');
    await fn(
      db,
      new DirectoryService(db, secrets.masterKey, config.allowPrivateEndpoints),
      secrets.masterKey,
    );
  } finally {
    await db.close();
  }
}

function uuidArgument(value: string): string {
  if (!UUID.test(value))
    throw new InvalidArgumentError('expected an id such as 0b9c7a4e-5d1f-4c2b-9a51-3f0e6d2c8b17.');
  return value;
}

function print(value: unknown) {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

program.parseAsync().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    process.stderr.write(`travel-rule-hub: ${err.message}\n`);
  } else if (err instanceof AppError) {
    const fields = err.errors?.map((e) => `\n  ${e.path}: ${e.message}`).join('') ?? '';
    process.stderr.write(`travel-rule-hub: ${err.detail}${fields}\n`);
  } else if (typeof (err as NodeJS.ErrnoException)?.code === 'string') {
    // A file that is missing or exists, a port in use, a database refusal: the message says it.
    process.stderr.write(`travel-rule-hub: ${(err as Error).message}\n`);
  } else {
    process.stderr.write(`travel-rule-hub: ${(err as Error)?.stack ?? String(err)}\n`);
  }
  process.exit(1);
});
