/**
 * Single sign-on's outbound requests keep to the hub's SSRF policy (deliveries/ssrf.ts): without
 * HUB_ALLOW_PRIVATE_ENDPOINTS an issuer must be https on a public address, checked before any
 * request leaves; and the callback's query (the provider's code, the state) never reaches a log.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { KeyRing } from '../../src/crypto/envelope.js';
import type { Database } from '../../src/db/database.js';
import { redactUrl } from '../../src/http/error-log.js';
import { AppError } from '../../src/http/errors.js';
import { OidcService } from '../../src/people/oidc.js';
import type { SessionService } from '../../src/people/sessions.js';

function service(allowPrivate: boolean) {
  return new OidcService({
    // Never reached: the issuer is refused before anything is stored.
    db: {} as Database,
    keys: KeyRing.of(randomBytes(32), []),
    sessions: {} as SessionService,
    allowPrivate,
    baseUrl: () => 'https://hub.example',
  });
}

async function refusal(allowPrivate: boolean, issuer: string): Promise<string> {
  const err = await service(allowPrivate)
    .set(crypto.randomUUID(), { issuer, clientId: 'c', clientSecret: 's3cret-value' }, 'org:x')
    .then(
      () => assert.fail('accepted'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof AppError && err.code === 'VALIDATION_FAILED', String(err));
  const message = err.errors?.[0]?.message ?? '';
  assert.ok(!message.includes('s3cret-value'));
  return message;
}

describe('single sign-on and the outbound policy', () => {
  it('refuses a plain-http issuer, loopback and localhost unless private endpoints are allowed', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      assert.match(await refusal(false, `http://127.0.0.1:${port}`), /https/);
      assert.match(await refusal(false, `https://127.0.0.1:${port}`), /non-public address \(loopback\)/);
      assert.match(await refusal(false, 'https://localhost'), /localhost/);
      assert.match(await refusal(false, 'https://10.0.0.7'), /private/);
      assert.equal(hits, 0, 'nothing was sent');
      // Allowed, the request goes out (and this server is no provider).
      assert.match(await refusal(true, `http://127.0.0.1:${port}`), /could not be discovered/);
      assert.ok(hits > 0);
    } finally {
      server.close();
    }
  });

  it('masks the callback’s query in logged URLs, however it is spelled', () => {
    for (const url of ['/v1/sso/callback?code=abc&state=def', '/v1/%73so/callback?code=abc&state=def']) {
      const logged = redactUrl(url);
      assert.ok(!logged.includes('abc') && !logged.includes('def'), logged);
    }
    assert.equal(redactUrl('/v1/transactions?state=PENDING'), '/v1/transactions?state=PENDING');
  });
});
