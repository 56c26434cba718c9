/**
 * Baseline servers measured in the same run as the hub (bench/run.ts starts this as a child
 * process). `validate`: a bare Fastify POST route validating the initiation body with the
 * same JSON schema and Ajv settings. `insert`: the same plus a naive one-row insert of the
 * body into the same kind of database the hub uses (DATABASE_URL, else PGlite in HUB_DATA_DIR,
 * which the bench removes afterwards): the storage limit a naive service hits.
 * Prints `READY <port>` when listening.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { Database } from '../src/db/database.js';
import { openPglite } from '../src/db/pglite.js';
import { openPostgres } from '../src/db/postgres.js';
import { addDocumentedAs } from '../src/http/documented-as.js';
import { InitiateRequest } from '../src/transactions/schemas.js';

const mode = process.argv[2] === 'insert' ? 'insert' : 'validate';
let db: Database | undefined;
if (mode === 'insert') {
  db = process.env.DATABASE_URL
    ? await openPostgres(process.env.DATABASE_URL, 20)
    : await openPglite(process.env.HUB_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'trh-bench-naive-')));
  await db.exec('CREATE TABLE IF NOT EXISTS bench_naive (id uuid PRIMARY KEY, body jsonb NOT NULL)');
}

const app = Fastify({
  logger: false,
  bodyLimit: 256 * 1024,
  ajv: {
    customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true },
    onCreate: addDocumentedAs,
  },
}).withTypeProvider<TypeBoxTypeProvider>();

app.post('/v1/transactions/initiate', { schema: { body: InitiateRequest } }, async (request) => {
  const id = randomUUID();
  if (db) await db.query('INSERT INTO bench_naive (id, body) VALUES ($1, $2)', [id, request.body]);
  return { transactionRef: id, status: 'NEW' };
});

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : 0}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await db?.close();
  process.exit(0);
});
