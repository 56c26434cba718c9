import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DatabaseError } from 'pg';
import { redactUrl, serializeError } from '../../src/http/error-log.js';

it('logs a database error without the input it quotes', () => {
  const db = Object.assign(new DatabaseError('invalid input syntax for type json', 120, 'error'), {
    code: '22P02',
    detail: 'Token "secret-address" is invalid.',
    where: 'JSON data, line 1: [{"destination_address":"secret-address"...',
    hint: 'see secret-address',
    table: 'transactions',
    routine: 'json_errsave_error',
  });
  const wrapped = new Error('batch failed', { cause: db });
  const logged = serializeError(wrapped);
  const cause = logged.cause as Record<string, unknown>;
  const text = JSON.stringify(logged);
  assert.ok(!text.includes('secret-address'), text);
  assert.equal(logged.message, 'batch failed');
  assert.equal(cause.code, '22P02');
  assert.equal(cause.table, 'transactions');
  assert.equal(cause.routine, 'json_errsave_error');
  assert.equal(cause.message, 'invalid input syntax for type json');
  assert.match(logged.stack, /batch failed/);
});

it('passes values that are not errors through', () => {
  const loose = serializeError as (value: unknown) => unknown;
  assert.equal(loose('text'), 'text');
  assert.deepEqual(loose({ a: 1 }), { a: 1 });
});

it('masks link and TRP tokens in logged URLs, and nothing else', () => {
  const token = 'Abc_-0123456789abcdefghijklmnopqrstuvwxyzAB';
  assert.equal(redactUrl(`/v1/claims/${token}/application`), '/v1/claims/[token]/application');
  assert.equal(redactUrl(`/v1/credentials/${token}`), '/v1/credentials/[token]');
  assert.equal(redactUrl(`/claim/${token}?x=1`), '/claim/[token]?x=1');
  assert.equal(redactUrl(`/ta/${token}?t=i`), '/ta/[token]?t=i');
  assert.equal(redactUrl(`/trp/resolutions/${token}`), '/trp/resolutions/[token]');
  assert.equal(redactUrl(`/trp/confirmations/${token}`), '/trp/confirmations/[token]');
  assert.equal(redactUrl('/v1/transactions/7f0c/pii'), '/v1/transactions/7f0c/pii');
  assert.equal(redactUrl('/v1/transactions/%37f0c'), '/v1/transactions/%37f0c', 'no token: as it came');
});

it('keeps a customer-name search’s query (a name) out of logged URLs, however spelled', () => {
  assert.equal(redactUrl('/v1/transactions?customer=jane%20smith&limit=5'), '/v1/transactions?[redacted]');
  assert.equal(redactUrl('/v1/transactions?limit=5&%63ustomer=jane'), '/v1/transactions?[redacted]');
  assert.equal(redactUrl('/v1/transactions?q=0xabc&limit=5'), '/v1/transactions?q=0xabc&limit=5');
});

it('masks tokens whatever the percent-encoding of the URL', () => {
  const token = 'Abc_-0123456789abcdefghijklmnopqrstuvwxyzAB';
  const escaped = [...token].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
  const cases: [string, string][] = [
    [`/v1/%63laims/${token}`, '/v1/claims/[token]'],
    [`/v1/%63%6C%61%69%6D%73/${token}/application`, '/v1/claims/[token]/application'],
    [`/v1/claims/${escaped}`, '/v1/claims/[token]'],
    [`/v1/claims%2F${token}`, '/v1/claims/[token]'],
    [`/v1/%2563laims/${token}`, '/v1/claims/[token]'],
    [`/v1/CLAIMS/${token}`, '/v1/CLAIMS/[token]'],
    [`/v1/claims//${token}`, '/v1/claims/[token]'],
    [`http://hub.example/v1/credential%73/${token}`, 'http://hub.example/v1/credentials/[token]'],
    [`/ta/${token}%3Ft=i`, '/ta/[token]?t=i'],
    [`/v1/claims/${token}%ZZ%E2`, '/v1/claims/[token]'],
  ];
  for (const [url, want] of cases) {
    const got = redactUrl(url);
    assert.equal(got, want, url);
    assert.ok(!got.includes(token.slice(5, 20)), url);
  }
});
