/**
 * The hub's OpenAPI document, produced without a database or a listener: the app is built
 * with a database that holds nothing (every query finds no rows; the start-up reads the link key),
 * and asked for its document. Used by
 * `npm run generate:client` and by the test that keeps the generated client in step.
 */
import { randomBytes } from 'node:crypto';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';

const unused = () => {
  throw new Error('the OpenAPI document is built without a database');
};
const noDatabase: Database = {
  kind: 'postgres',
  query: async () => [],
  exec: unused,
  transaction: unused,
  listen: async () => async () => {},
  close: async () => {},
};

export async function openapiDocument(): Promise<Record<string, unknown>> {
  const masterKey = randomBytes(32);
  const config = loadConfig({
    HUB_LOG_LEVEL: 'silent',
    HUB_ADMIN_KEY: 'openapi-document-generation-operator-key',
    HUB_MASTER_KEY: masterKey.toString('base64'),
    HUB_WORKER: 'false',
  });
  const { app } = await buildApp({
    config,
    db: noDatabase,
    secrets: { adminKey: config.adminKey!, masterKey, generatedAdminKey: false },
  });
  await app.ready();
  const doc = app.swagger() as unknown as Record<string, unknown>;
  await app.close();
  return doc;
}
