import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { clientSchemaSource } from '../../scripts/generate-client.js';

it('keeps the committed typed client in step with the hub’s OpenAPI document (npm run generate:client)', async () => {
  const committed = readFileSync(new URL('../../src/client/schema.ts', import.meta.url), 'utf8');
  assert.ok(
    committed === (await clientSchemaSource()),
    'src/client/schema.ts is stale: run `npm run generate:client`',
  );
});
