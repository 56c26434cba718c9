import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { ERRORS } from '../../src/http/errors.js';

it('documents every error code with its status in docs/errors.md, and nothing else', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
  const catalogue = Object.entries(ERRORS).map(([code, def]) => [code, def.status]);
  assert.deepEqual(rows, catalogue);
});
