import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  decodeWebhookSecret,
  generateWebhookSecret,
  newMessageId,
  signatureHeader,
  webhookHeaders,
} from '../../src/deliveries/signing.js';
import { verifyWebhook } from '../../src/participant/webhooks.js';

const body = JSON.stringify({ transactionRef: 'ref-1', status: 'DECLINED', note: 'Żółć ✓' });
const now = () => Math.floor(Date.now() / 1000);

function headers(signature: string, msgId: string, timestamp: number) {
  return { 'webhook-id': msgId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

describe('webhook secrets', () => {
  it('are whsec_ plus base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(decodeWebhookSecret(secret).length, 32);
    assert.notEqual(generateWebhookSecret(), secret);
  });

  it('refuse a missing prefix, bad base64 and sizes outside 24–64 bytes', () => {
    assert.throws(() => decodeWebhookSecret(Buffer.alloc(32).toString('base64')), /whsec_/);
    assert.throws(() => decodeWebhookSecret('whsec_not*base64'), /24 to 64 bytes/);
    assert.throws(() => decodeWebhookSecret(`whsec_${Buffer.alloc(16).toString('base64')}`), /24 to 64/);
    assert.throws(() => decodeWebhookSecret(`whsec_${Buffer.alloc(65).toString('base64')}`), /24 to 64/);
    assert.equal(decodeWebhookSecret(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).length, 24);
  });
});

describe('signatureHeader', () => {
  it('verifies with the standardwebhooks library for a single secret', () => {
    const secret = generateWebhookSecret();
    const msgId = newMessageId();
    const ts = now();
    const signature = signatureHeader([secret], msgId, ts, body);
    assert.match(signature, /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(new Webhook(secret).verify(body, headers(signature, msgId, ts)), JSON.parse(body));
  });

  it('matches the library signature byte for byte', () => {
    const secret = generateWebhookSecret();
    const ts = now();
    assert.equal(
      signatureHeader([secret], 'msg_1', ts, body),
      new Webhook(secret).sign('msg_1', new Date(ts * 1000), body),
    );
  });

  it('signs with both secrets during a rotation, and each one alone verifies', () => {
    const fresh = generateWebhookSecret();
    const old = generateWebhookSecret();
    const msgId = newMessageId();
    const ts = now();
    const signature = signatureHeader([fresh, old], msgId, ts, body);
    assert.equal(signature.split(' ').length, 2);
    for (const secret of [fresh, old]) {
      assert.deepEqual(new Webhook(secret).verify(body, headers(signature, msgId, ts)), JSON.parse(body));
    }
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers(signature, msgId, ts)));
  });

  it('fails verification for a tampered body, id or timestamp', () => {
    const secret = generateWebhookSecret();
    const msgId = newMessageId();
    const ts = now();
    const signature = signatureHeader([secret], msgId, ts, body);
    const hook = new Webhook(secret);
    assert.throws(() => hook.verify(body.replace('DECLINED', 'CONFIRMED'), headers(signature, msgId, ts)));
    assert.throws(() => hook.verify(`${body} `, headers(signature, msgId, ts)));
    assert.throws(() => hook.verify(body, headers(signature, newMessageId(), ts)));
    assert.throws(() => hook.verify(body, headers(signature, msgId, ts - 1)));
  });

  it('signs a repeated secret once', () => {
    const secret = generateWebhookSecret();
    assert.equal(signatureHeader([secret, secret], 'msg_1', now(), body).split(' ').length, 1);
  });

  it('refuses no secrets, unsafe message ids and bad timestamps', () => {
    const secret = generateWebhookSecret();
    assert.throws(() => signatureHeader([], 'msg_1', now(), body), /at least one/);
    assert.throws(() => signatureHeader([secret], 'msg.1', now(), body), /message id/);
    assert.throws(() => signatureHeader([secret], 'msg 1', now(), body), /message id/);
    assert.throws(() => signatureHeader([secret], '', now(), body), /message id/);
    assert.throws(() => signatureHeader([secret], 'msg_1', 1.5, body), /timestamp/);
    assert.throws(() => signatureHeader([secret], 'msg_1', -1, body), /timestamp/);
  });

  it('builds the three headers a receiver verifies', () => {
    const secret = generateWebhookSecret();
    const ts = now();
    const h = webhookHeaders([secret], 'msg_abc', ts, body);
    assert.equal(h['webhook-id'], 'msg_abc');
    assert.equal(h['webhook-timestamp'], String(ts));
    assert.deepEqual(new Webhook(secret).verify(body, h), JSON.parse(body));
  });
});

describe('newMessageId', () => {
  it('is msg_ plus a 26-character ULID', () => {
    assert.match(newMessageId(), /^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('is unique over many calls', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newMessageId()));
    assert.equal(ids.size, 10_000);
  });

  it('encodes the time first, so later ids sort after earlier ones', () => {
    const t = Date.UTC(2025, 0, 1);
    assert.ok(newMessageId(t) < newMessageId(t + 1));
    assert.ok(newMessageId(t + 1000) > newMessageId(t));
    assert.equal(newMessageId(0).slice(4, 14), '0000000000');
  });

  it('encodes the time as ULID does', () => {
    // 1469918176385 ms is 01ARYZ6S41 in the ULID specification's example.
    assert.equal(newMessageId(1469918176385).slice(4, 14), '01ARYZ6S41');
  });
});

describe('verifyWebhook (participant SDK)', () => {
  const secret = generateWebhookSecret();
  const signed = webhookHeaders([secret], 'msg_case', now(), body);

  it('finds the headers whatever the case of their names, as the library does', () => {
    const mixed = Object.fromEntries(
      Object.entries(signed).map(([name, value]) => [
        name.replace(/(^|-)\w/g, (c) => c.toUpperCase()),
        value,
      ]),
    );
    assert.ok('Webhook-Id' in mixed);
    assert.deepEqual(new Webhook(secret).verify(body, mixed), JSON.parse(body));
    assert.deepEqual(verifyWebhook([secret], body, mixed), JSON.parse(body));
  });

  it('says which is wrong: missing headers, not a bad timestamp', () => {
    const { 'webhook-id': _id, ...withoutId } = signed;
    assert.throws(() => verifyWebhook([secret], body, withoutId), /Missing required headers/);
  });
});
