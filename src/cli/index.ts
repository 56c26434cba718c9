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
import type { Scope } from '../http/auth.js';
import { UUID } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import type { Ivms101Version } from '../ivms101/message.js';
import type { OperatorService } from '../operators/service.js';
import { generatedKeyLine, resolveSecrets } from '../secrets.js';
import { VERSION } from '../version.js';
import { registerAuditCommands } from './audit.js';
import { registerParticipantCommands } from './participant.js';

/** Who the audit names for changes made at the shell (with access to the database and its keys). */
const CLI = 'operator:cli';

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
      async ({ db, masterKey, previousMasterKeys }) => {
        const { migrate } = await import('../db/migrate.js');
        const applied = await migrate(db, { masterKey, previousMasterKeys });
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
  .option('--contact-email <address>', 'where notices about the organization go')
  .option('--ivms101-version <version>', 'IVMS101 version it receives data in: 2020 or 2023', versionArgument)
  .option('--jurisdiction <country>', 'ISO 3166-1 alpha-2 country whose travel rule binds it, e.g. DE')
  .option('--lei <lei>', 'its Legal Entity Identifier (ISO 17442)')
  .option('--verified', 'mark as verified by the operator')
  .description('register an organization; prints its API key and webhook secret once')
  .action(
    (o: {
      name: string;
      did: string;
      endpoint?: string;
      publicKey?: string;
      contactEmail?: string;
      ivms101Version?: Ivms101Version;
      jurisdiction?: string;
      lei?: string;
      verified?: boolean;
    }) =>
      withDirectory(async ({ directory }) => {
        print(
          await directory.create(
            {
              name: o.name,
              vaspDid: o.did,
              travelEndpoint: o.endpoint,
              publicKey: o.publicKey ? readFileSync(o.publicKey, 'utf8') : undefined,
              contactEmail: o.contactEmail,
              ivms101Version: o.ivms101Version,
              jurisdiction: o.jurisdiction?.toUpperCase(),
              lei: o.lei,
              organizationType: o.verified ? 'verified' : 'unverified',
            },
            CLI,
          ),
        );
      }),
  );
org
  .command('list')
  .description('list organizations')
  .action(() => withDirectory(async ({ directory }) => print({ organizations: await directory.list({}) })));
org
  .command('verify')
  .argument('<id>', 'organization id', uuidArgument)
  .option('--revoke', 'set the organization back to unverified')
  .description('mark an organization as verified by the operator')
  .action((id: string, o: { revoke?: boolean }) =>
    withDirectory(async ({ directory }) =>
      print(await directory.update(id, { organizationType: o.revoke ? 'unverified' : 'verified' }, CLI)),
    ),
  );

org
  .command('update')
  .argument('<id>', 'organization id', uuidArgument)
  .option('--ivms101-version <version>', 'IVMS101 version it receives data in: 2020 or 2023', versionArgument)
  .option(
    '--jurisdiction <country>',
    'ISO 3166-1 alpha-2 country whose travel rule binds it; "none" clears it',
  )
  .option('--lei <lei>', 'its Legal Entity Identifier (ISO 17442); "none" clears it')
  .description('set an organization’s IVMS101 version, jurisdiction or LEI')
  .action((id: string, o: { ivms101Version?: Ivms101Version; jurisdiction?: string; lei?: string }) =>
    withDirectory(async ({ directory }) => {
      const value = (v: string | undefined) =>
        v === undefined ? undefined : v.toLowerCase() === 'none' ? null : v;
      const patch = {
        ivms101Version: o.ivms101Version,
        jurisdiction: value(o.jurisdiction?.toUpperCase()),
        lei: value(o.lei),
      };
      if (Object.values(patch).every((v) => v === undefined)) {
        throw new InvalidArgumentError('give --ivms101-version, --jurisdiction or --lei');
      }
      print(await directory.update(id, patch, CLI));
    }),
  );

const key = program.command('key').description('manage API keys (operator)');
key
  .command('create')
  .argument('<orgId>', 'organization id', uuidArgument)
  .option('--scope <scope>', 'full (every right) or read (GET requests only)', scopeArgument, 'full')
  .description('issue another API key for an organization (printed once)')
  .action((orgId: string, o: { scope: Scope }) =>
    withDirectory(async ({ directory }) =>
      print(await directory.credentials.createApiKey(orgId, CLI, o.scope)),
    ),
  );
key
  .command('revoke')
  .argument('<keyId>', 'API key id', uuidArgument)
  .description('revoke an API key')
  .action((keyId: string) =>
    withDirectory(async ({ directory }) => {
      await directory.credentials.revokeApiKey(keyId, CLI);
      print({ revoked: keyId });
    }),
  );

const operator = program.command('operator').description('manage named operators');
operator
  .command('create')
  .requiredOption('--name <name>', 'the operator’s name, as the audit shows it (operator:<id>:<name>)')
  .description('create a named operator; prints its key once')
  .action((o: { name: string }) =>
    withDirectory(async ({ operators }) => print(await operators.create(o.name, CLI))),
  );
operator
  .command('list')
  .description('list named operators')
  .action(() => withDirectory(async ({ operators }) => print({ operators: await operators.list() })));
operator
  .command('revoke')
  .argument('<id>', 'operator id', uuidArgument)
  .description('revoke a named operator’s key')
  .action((id: string) =>
    withDirectory(async ({ operators }) => {
      await operators.revoke(id, CLI, null);
      print({ revoked: id });
    }),
  );

program
  .command('rekey')
  .description(
    're-seal all sealed data under the current HUB_MASTER_KEY (older keys in HUB_MASTER_KEYS_PREVIOUS); ' +
      'runs beside a hub on PostgreSQL, in batches, and resumes where a killed run stopped',
  )
  .option('--batch-size <n>', 'blobs per database transaction', positiveInteger, 200)
  .option('--pause <ms>', 'milliseconds to wait between batches (spares a busy hub)', positiveInteger, 0)
  .action((o: { batchSize: number; pause: number }) =>
    withDirectory(async ({ db, masterKey, previousMasterKeys }) => {
      const { runRekey } = await import('./rekey.js');
      print(await runRekey(db, masterKey, previousMasterKeys ?? [], o));
    }).catch((err: unknown) => {
      if (!(err instanceof DataDirLockedError)) throw err;
      throw new DataDirLockedError(
        `${err.message}. A hub serving this data directory with HUB_MASTER_KEYS_PREVIOUS re-seals in the ` +
          'background itself: GET /v1/admin/rekey shows its progress.',
      );
    }),
  );

registerParticipantCommands(program);
registerAuditCommands(program);

/** What an operator command works with: the database and the services over it. */
interface Shell {
  db: Database;
  directory: DirectoryService;
  operators: OperatorService;
  masterKey: Buffer;
  previousMasterKeys?: readonly Buffer[];
}

async function withDirectory(fn: (shell: Shell) => Promise<void>, options: { migrate?: boolean } = {}) {
  const config = loadConfig();
  const secrets = resolveSecrets(config);
  // On stderr: stdout is the command's JSON.
  const keyLine = generatedKeyLine(secrets, config);
  if (keyLine) process.stderr.write(`${keyLine}\n`);
  const db = await openDatabase(config, {
    ...options,
    masterKey: secrets.masterKey,
    previousMasterKeys: secrets.previousMasterKeys,
  });
  try {
    const { DirectoryService } = await import('../directory/service.js');
    const { OperatorService } = await import('../operators/service.js');
    const directory = new DirectoryService(db, secrets.masterKey, config.allowPrivateEndpoints);
    await fn({
      db,
      directory,
      operators: new OperatorService(db, directory),
      masterKey: secrets.masterKey,
      previousMasterKeys: secrets.previousMasterKeys,
    });
  } finally {
    await db.close();
  }
}

function scopeArgument(value: string): Scope {
  if (value !== 'full' && value !== 'read') throw new InvalidArgumentError('expected full or read.');
  return value;
}

function versionArgument(value: string): Ivms101Version {
  if (value !== '2020' && value !== '2023') throw new InvalidArgumentError('expected 2020 or 2023.');
  return value;
}

function positiveInteger(value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) === 0)
    throw new InvalidArgumentError('expected a positive integer.');
  return Number(value);
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
