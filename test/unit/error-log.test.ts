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
});
