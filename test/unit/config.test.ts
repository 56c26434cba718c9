import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isUsableAdminKey } from '../../src/config.js';

it('takes an operator key the hub can be sent in x-api-key: printable ASCII, 32 to 256, spaces inside only', () => {
  assert.ok(isUsableAdminKey('my operator key with spaces 2026'), 'HTTP keeps spaces inside a value');
  assert.ok(isUsableAdminKey('x'.repeat(32)) && isUsableAdminKey('x'.repeat(256)));
  for (const bad of [
    'x'.repeat(31),
    'x'.repeat(257),
    ` ${'x'.repeat(30)}`,
    `${'x'.repeat(30)} `,
    `${'x'.repeat(30)}\t1`,
  ]) {
    assert.equal(isUsableAdminKey(bad), false, JSON.stringify(bad));
  }
  assert.equal(isUsableAdminKey('operator-key-über-lang-genug-2026'), false, 'not ASCII');
});
