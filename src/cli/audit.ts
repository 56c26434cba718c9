/**
 * Audit commands (SPEC §14): verify the chain in the database or an export offline, export it,
 * and print the public half of the audit key for auditors. Database commands open it directly
 * (on the embedded database stop the hub first, or use /v1/admin/audit over HTTP).
 */
import { createWriteStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Checkpoint } from '../audit/checkpoint.js';
import type { AuditFilter } from '../audit/reader.js';
import type { VerifyResult } from '../audit/verify.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { openDatabase } from '../db/open.js';
import { resolveSecrets } from '../secrets.js';

export function registerAuditCommands(program: Command) {
  const audit = program.command('audit').description('the hash-chained audit trail');

  audit
    .command('verify')
    .description(
      'walk the chain (in the database, or in an export with --file) and name the first broken row; exit 1 if any',
    )
    .option('--file <export.jsonl>', 'check this JSON Lines export offline, without the database')
    .option('--public-key <file>', 'PEM public key the checkpoint must be signed with (the auditor’s copy)')
    .option(
      '--checkpoint <file>',
      'a checkpoint kept earlier (JSON, or an export ending with one): the chain must still hold it',
    )
    .option('--partial', 'the export is filtered: allow gaps in seq')
    .action(async (o: { file?: string; publicKey?: string; checkpoint?: string; partial?: boolean }) => {
      const { verifyDatabase, verifyExport } = await import('../audit/verify.js');
      const publicKey = o.publicKey === undefined ? undefined : readFileSync(o.publicKey, 'utf8');
      const result = o.file
        ? await verifyExport(o.file, { publicKey, partial: o.partial })
        : await withDatabase((db) =>
            verifyDatabase(db, {
              checkpoint: o.checkpoint ? readCheckpoint(o.checkpoint) : undefined,
              publicKey,
            }),
          );
      report(result);
    });

  audit
    .command('export')
    .description(
      'write the chain (or the rows matching the filters) as an export ending with a signed checkpoint',
    )
    .addOption(new Option('--format <format>', 'jsonl or csv').choices(['jsonl', 'csv']).default('jsonl'))
    .option('--out <file>', 'write here (created; must not exist) instead of to standard output')
    .option('--actor <actor>', 'only rows by this actor, e.g. operator:alice or org:<id>')
    .option('--action <action>', 'only rows with this action, e.g. transaction.pii_read')
    .option('--transaction-ref <ref>', 'only rows about this transaction')
    .option('--organization-id <id>', 'only rows about this organization and its transactions')
    .option('--from <time>', 'from this ISO 8601 time on', isoArgument)
    .option('--to <time>', 'before this ISO 8601 time', isoArgument)
    .action(async (o: { format: 'jsonl' | 'csv'; out?: string } & AuditFilter) => {
      const { exportLines } = await import('../audit/export.js');
      const filter: AuditFilter = {};
      for (const k of ['actor', 'action', 'transactionRef', 'organizationId', 'from', 'to'] as const) {
        if (o[k] !== undefined) filter[k] = o[k];
      }
      await withDatabase(async (db, signer) => {
        const out = o.out ? createWriteStream(o.out, { flags: 'wx', mode: 0o600 }) : process.stdout;
        await pipeline(Readable.from(exportLines(db, signer, filter, o.format)), out, {
          end: o.out !== undefined,
        });
      });
    });

  audit
    .command('public-key')
    .description('print the public key (PEM) that checkpoints are signed with, for auditors to keep')
    .action(async () => {
      const { AuditSigner } = await import('../audit/checkpoint.js');
      const config = loadConfig();
      process.stdout.write(AuditSigner.forConfig(config, resolveSecrets(config).masterKey).publicKeyPem);
    });
}

async function withDatabase<T>(
  fn: (db: Database, signer: import('../audit/checkpoint.js').AuditSigner) => Promise<T>,
) {
  const { AuditSigner } = await import('../audit/checkpoint.js');
  const config = loadConfig();
  const secrets = resolveSecrets(config);
  const db = await openDatabase(config, { masterKey: secrets.masterKey });
  try {
    return await fn(db, AuditSigner.forConfig(config, secrets.masterKey));
  } finally {
    await db.close();
  }
}

/** A checkpoint file: the endpoint's JSON, `{ "checkpoint": … }`, or an export whose last line is that. */
function readCheckpoint(file: string): Checkpoint {
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  const value = JSON.parse(lines[lines.length - 1]!) as Checkpoint | { checkpoint: Checkpoint };
  return 'checkpoint' in value ? value.checkpoint : value;
}

function report(result: VerifyResult) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (!result.ok) {
    process.stderr.write(
      `travel-rule-hub: audit chain broken at seq ${result.broken!.seq}: ${result.broken!.reason}\n`,
    );
    process.exitCode = 1;
  }
}

function isoArgument(value: string): string {
  if (Number.isNaN(Date.parse(value))) throw new InvalidArgumentError('expected an ISO 8601 time.');
  return value;
}
