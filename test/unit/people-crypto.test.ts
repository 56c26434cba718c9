import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hashPassword, verifyNothing, verifyPassword } from '../../src/people/passwords.js';
import { needOf, ROLE_PERMISSIONS } from '../../src/people/roles.js';
import { base32Decode, base32Encode, hotp, verifyTotp } from '../../src/people/totp.js';

// RFC 6238 Appendix B, SHA-1 rows: the seed "12345678901234567890", 8 digits, 30-second steps.
const SEED = Buffer.from('12345678901234567890', 'ascii');
const VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

it('computes the TOTP codes of RFC 6238 Appendix B (SHA-1)', () => {
  for (const [t, code] of VECTORS) assert.equal(hotp(SEED, Math.floor(t / 30), 8), code, `T = ${t}`);
});

it('accepts a code one step either side, refuses two steps off, a used step and an older one', () => {
  const secret = base32Encode(SEED);
  const at = 1111111111 * 1000;
  const step = Math.floor(1111111111 / 30);
  const code = (s: number) => hotp(SEED, s);
  assert.equal(verifyTotp(secret, code(step), at, null), step);
  assert.equal(verifyTotp(secret, code(step - 1), at, null), step - 1);
  assert.equal(verifyTotp(secret, code(step + 1), at, null), step + 1);
  assert.equal(verifyTotp(secret, code(step + 2), at, null), undefined);
  assert.equal(verifyTotp(secret, code(step - 2), at, null), undefined);
  assert.equal(verifyTotp(secret, code(step), at, step), undefined, 'once accepted, refused');
  assert.equal(verifyTotp(secret, code(step - 1), at, step), undefined, 'older than the last accepted');
  assert.equal(verifyTotp(secret, 'abcdef', at, null), undefined);
});

it('round-trips base32 (RFC 4648 test vectors)', () => {
  for (const [plain, encoded] of [
    ['f', 'MY'],
    ['fo', 'MZXQ'],
    ['foo', 'MZXW6'],
    ['foob', 'MZXW6YQ'],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI'],
  ] as const) {
    assert.equal(base32Encode(Buffer.from(plain)), encoded);
    assert.equal(base32Decode(encoded)!.toString(), plain);
  }
  assert.equal(base32Decode('mzxw 6ytb oi')!.toString(), 'foobar', 'case and spaces do not matter');
  assert.equal(base32Decode('MZXW6YTBOI======')!.toString(), 'foobar', 'padding is ignored');
  assert.equal(base32Decode('not base32!'), undefined);
});

it('hashes passwords with salted scrypt and verifies only the same password', async () => {
  const a = await hashPassword('correct horse battery staple');
  const b = await hashPassword('correct horse battery staple');
  assert.notEqual(a, b, 'salted');
  assert.match(a, /^scrypt\$15\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.equal(await verifyPassword('correct horse battery staple', a), true);
  assert.equal(await verifyPassword('correct horse battery stapl', a), false);
  assert.equal(await verifyPassword('correct horse battery staple', 'plaintext'), false);
  assert.equal(await verifyPassword('correct horse battery staple', a.replace('$15$', '$40$')), false);
  assert.equal(await verifyNothing('anything at all'), false);
});

it('derives what a route needs from its method, unless the table says otherwise', () => {
  assert.equal(needOf('GET', '/v1/transactions'), 'read');
  assert.equal(needOf('GET', '/v1/transactions/:transactionRef/pii'), 'pii');
  assert.equal(needOf('POST', '/v1/transactions/decline'), 'act');
  assert.equal(needOf('PATCH', '/v1/organizations/me'), 'admin');
  assert.equal(needOf('POST', '/v1/admin/organizations'), 'admin');
  assert.equal(needOf('GET', '/v1/admin/organizations'), 'read');
  assert.deepEqual(ROLE_PERMISSIONS.viewer, ['read']);
  assert.ok(!ROLE_PERMISSIONS.analyst.includes('admin'));
});
