import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { it } from 'node:test';
import { eachBackend } from '../harness.js';

/** Sends `request` as is on a new connection and returns the response up to its first line's end. */
function rawHead(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      got += d;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
}

const x25519Pem = () =>
  generateKeyPairSync('x25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();

function assertProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.status, status);
  assert.equal(res.body.code, code);
  for (const field of ['type', 'title', 'detail']) assert.equal(typeof res.body[field], 'string', field);
}

eachBackend(
  'directory and operator API',
  (hub, backend) => {
    it('rejects /v1 requests without a key, with an unknown key and with a malformed key', async () => {
      assertProblem(await hub().request('GET', '/v1/organizations'), 401, 'UNAUTHENTICATED');
      const unknown = `trh_${'A'.repeat(43)}`;
      assertProblem(
        await hub().request('GET', '/v1/organizations', { key: unknown }),
        401,
        'UNAUTHENTICATED',
      );
      assertProblem(
        await hub().request('GET', '/v1/organizations', { key: 'nonsense' }),
        401,
        'UNAUTHENTICATED',
      );
    });

    it('returns a working API key once when an organization is created', async () => {
      const res = await hub().admin('POST', '/v1/admin/organizations', {
        name: 'Exchange One',
        vaspDid: 'did:web:exchange-one.example',
        travelEndpoint: 'https://exchange-one.example/travel',
      });
      assert.equal(res.status, 201);
      assert.match(res.body.apiKey, /^trh_[A-Za-z0-9_-]{43}$/);
      assert.match(res.body.webhookSecret, /^whsec_/);
      const me = await hub().request('GET', '/v1/organizations/me', { key: res.body.apiKey });
      assert.equal(me.status, 200);
      assert.equal(me.body.id, res.body.organization.id);
      const fetched = await hub().admin('GET', `/v1/admin/organizations/${res.body.organization.id}`);
      assert.equal(fetched.status, 200);
      assert.ok(!JSON.stringify(fetched.body).includes(res.body.apiKey), 'the key is never shown again');
      const keys = await hub().admin('GET', `/v1/admin/organizations/${res.body.organization.id}/api-keys`);
      assert.equal(keys.body.apiKeys.length, 1);
      assert.equal(keys.body.apiKeys[0].prefix, res.body.apiKey.slice(0, 12));
      assert.ok(!JSON.stringify(keys.body).includes(res.body.apiKey));
    });

    it('stores API keys only as hashes', async () => {
      const org = await hub().createOrg();
      const rows = await hub().db.query('SELECT * FROM api_keys WHERE organization_id = $1', [org.id]);
      assert.equal(rows.length, 1);
      const dump = JSON.stringify(rows, (_k, v) =>
        v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
      );
      assert.ok(!dump.includes(org.apiKey) && !dump.includes(org.apiKey.slice(12)));
    });

    it('refuses the operator key outside /v1/admin and organization keys inside it', async () => {
      assertProblem(await hub().admin('GET', '/v1/organizations'), 403, 'FORBIDDEN');
      const org = await hub().createOrg();
      assertProblem(
        await hub().request('GET', '/v1/admin/organizations', { key: org.apiKey }),
        403,
        'FORBIDDEN',
      );
    });

    it('judges a request by the route it reached, however its URL spells the path', async () => {
      const org = await hub().createOrg();
      // The router decodes percent-escapes: these reach the admin routes.
      assertProblem(await hub().request('GET', '/%761/admin/organizations'), 401, 'UNAUTHENTICATED');
      assertProblem(
        await hub().request('POST', `/%761/admin/organizations/${org.id}/api-keys`, { body: {} }),
        401,
        'UNAUTHENTICATED',
      );
      assertProblem(
        await hub().request('PATCH', `/v1/%61dmin/organizations/${org.id}`, {
          key: org.apiKey,
          body: { organizationType: 'verified' },
        }),
        403,
        'FORBIDDEN',
      );
      assertProblem(await hub().request('GET', '/%761/organizations'), 401, 'UNAUTHENTICATED');
      assertProblem(await hub().admin('GET', '/%761/organizations'), 403, 'FORBIDDEN');
      const after = await hub().admin('GET', `/v1/admin/organizations/${org.id}`);
      assert.equal(after.body.organizationType, 'unverified');
      const keys = await hub().admin('GET', `/v1/admin/organizations/${org.id}/api-keys`);
      assert.equal(keys.body.apiKeys.length, 1, 'no key was created');
      // An absolute-form request target (as sent to a proxy) reaches the same route.
      const { port } = new URL(hub().url);
      const head = await rawHead(
        Number(port),
        `GET http://127.0.0.1:${port}/v1/admin/organizations HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      );
      assert.match(head, /^HTTP\/1\.1 401 /);
    });

    it('lists organizations with exactly the interface document fields, with filters', async () => {
      const org = await hub().createOrg({ travelEndpoint: 'https://list.example', publicKey: x25519Pem() });
      const res = await hub().request('GET', '/v1/organizations', { key: org.apiKey });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['organizations']);
      const mine = res.body.organizations.find((o: any) => o.id === org.id);
      assert.deepEqual(Object.keys(mine).sort(), [
        'id',
        'name',
        'organizationType',
        'publicKey',
        'travelEndpoint',
        'vaspDid',
      ]);
      assert.equal(mine.organizationType, 'unverified');
      assert.match(mine.publicKey, /BEGIN PUBLIC KEY/);
      const byDid = await hub().request(
        'GET',
        `/v1/organizations?vaspDid=${encodeURIComponent(org.vaspDid)}`,
        {
          key: org.apiKey,
        },
      );
      assert.deepEqual(
        byDid.body.organizations.map((o: any) => o.id),
        [org.id],
      );
      const verified = await hub().request('GET', '/v1/organizations?organizationType=verified', {
        key: org.apiKey,
      });
      assert.ok(verified.body.organizations.every((o: any) => o.organizationType === 'verified'));
      assert.ok(!verified.body.organizations.some((o: any) => o.id === org.id));
      const gold = await hub().request('GET', '/v1/organizations?organizationType=gold', { key: org.apiKey });
      assertProblem(gold, 400, 'VALIDATION_FAILED');
      assert.deepEqual(gold.body.errors, [
        { path: '/querystring/organizationType', message: 'must be one of unverified, verified' },
      ]);
    });

    it('lets the operator verify an organization', async () => {
      const org = await hub().createOrg();
      const res = await hub().admin('PATCH', `/v1/admin/organizations/${org.id}`, {
        organizationType: 'verified',
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.organizationType, 'verified');
      const list = await hub().request('GET', '/v1/organizations?organizationType=verified', {
        key: org.apiKey,
      });
      assert.ok(list.body.organizations.some((o: any) => o.id === org.id));
    });

    it('updates the caller’s own entry and validates every field', async () => {
      const org = await hub().createOrg();
      const pem = x25519Pem();
      const ok = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: { name: 'Renamed', travelEndpoint: 'https://renamed.example/api', publicKey: pem },
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.name, 'Renamed');
      assert.equal(ok.body.publicKey, pem);

      const bad = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: {
          travelEndpoint: 'not a url',
          publicKey: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----',
        },
      });
      assertProblem(bad, 400, 'VALIDATION_FAILED');
      assert.deepEqual(bad.body.errors.map((e: any) => e.path).sort(), ['/publicKey', '/travelEndpoint']);

      const http = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: { travelEndpoint: 'http://plain.example' },
      });
      assertProblem(http, 400, 'VALIDATION_FAILED');
      assert.equal(http.body.errors[0].path, '/travelEndpoint');
      assert.match(http.body.errors[0].message, /https/);

      const ec384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
        .publicKey.export({ type: 'spki', format: 'pem' })
        .toString();
      assertProblem(
        await hub().request('PATCH', '/v1/organizations/me', { key: org.apiKey, body: { publicKey: ec384 } }),
        400,
        'VALIDATION_FAILED',
      );
      const unchanged = await hub().request('GET', '/v1/organizations/me', { key: org.apiKey });
      assert.equal(
        unchanged.body.travelEndpoint,
        'https://renamed.example/api',
        'a rejected update changes nothing',
      );
    });

    it('rejects unknown fields and wrong types instead of stripping or coercing them', async () => {
      const org = await hub().createOrg();
      const res = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: { name: 42, colour: 'blue' },
      });
      assertProblem(res, 400, 'VALIDATION_FAILED');
      const paths = res.body.errors.map((e: any) => e.path);
      assert.ok(paths.includes('/colour') && paths.includes('/name'), JSON.stringify(res.body.errors));
    });

    it('answers a duplicate vaspDid with 409 ALREADY_EXISTS', async () => {
      const org = await hub().createOrg();
      const res = await hub().admin('POST', '/v1/admin/organizations', {
        name: 'Copy',
        vaspDid: org.vaspDid,
      });
      assertProblem(res, 409, 'ALREADY_EXISTS');
    });

    it('answers unknown routes, bad JSON, non-JSON bodies and huge bodies with problem+json', async () => {
      const org = await hub().createOrg();
      assertProblem(await hub().request('GET', '/v1/nowhere', { key: org.apiKey }), 404, 'NOT_FOUND');
      assertProblem(await hub().request('GET', '/nowhere'), 404, 'NOT_FOUND');
      assertProblem(
        await hub().request('GET', '/v1/admin/organizations/00000000-0000-4000-8000-000000000000', {
          key: hub().adminKey,
        }),
        404,
        'NOT_FOUND',
      );
      assertProblem(
        await hub().request('PATCH', '/v1/organizations/me', {
          key: org.apiKey,
          raw: '{"name":',
          headers: { 'content-type': 'application/json' },
        }),
        400,
        'VALIDATION_FAILED',
      );
      assertProblem(
        await hub().request('PATCH', '/v1/organizations/me', {
          key: org.apiKey,
          raw: 'name=x',
          headers: { 'content-type': 'text/plain' },
        }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      assertProblem(
        await hub().request('PATCH', '/v1/organizations/me', {
          key: org.apiKey,
          raw: JSON.stringify({ name: 'x'.repeat(300 * 1024) }),
          headers: { 'content-type': 'application/json' },
        }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
    });

    it('issues further keys and rejects a revoked one', async () => {
      const org = await hub().createOrg();
      const second = await hub().admin('POST', `/v1/admin/organizations/${org.id}/api-keys`);
      assert.equal(second.status, 201);
      assert.equal(
        (await hub().request('GET', '/v1/organizations/me', { key: second.body.apiKey })).status,
        200,
      );
      const del = await hub().admin('DELETE', `/v1/admin/api-keys/${second.body.keyId}`);
      assert.equal(del.status, 204);
      assertProblem(
        await hub().request('GET', '/v1/organizations/me', { key: second.body.apiKey }),
        401,
        'UNAUTHENTICATED',
      );
      assert.equal((await hub().request('GET', '/v1/organizations/me', { key: org.apiKey })).status, 200);
      assertProblem(await hub().admin('DELETE', `/v1/admin/api-keys/${randomUUID()}`), 404, 'NOT_FOUND');
    });

    it('rotates the webhook secret and keeps the previous one signing for 24 hours', async () => {
      const org = await hub().createOrg();
      const res = await hub().admin('POST', `/v1/admin/organizations/${org.id}/webhook-secret`);
      assert.equal(res.status, 201);
      assert.match(res.body.webhookSecret, /^whsec_/);
      assert.notEqual(res.body.webhookSecret, org.webhookSecret);
      const until = Date.parse(res.body.previousSecretValidUntil) - Date.now();
      assert.ok(until > 23.9 * 3600e3 && until <= 24 * 3600e3, String(until));
      assert.deepEqual(await hub().hub.directory.webhookSecrets(org.id), [
        res.body.webhookSecret,
        org.webhookSecret,
      ]);
      const rows = await hub().db.query(
        'SELECT sealed_secret FROM webhook_secrets WHERE organization_id = $1',
        [org.id],
      );
      const dump = rows.map((r: any) => Buffer.from(r.sealed_secret).toString('latin1')).join('');
      assert.ok(!dump.includes(org.webhookSecret.slice(6)), 'secrets are sealed at rest');
    });

    it('records operator changes in the audit log', async () => {
      const org = await hub().createOrg();
      await hub().admin('PATCH', `/v1/admin/organizations/${org.id}`, { organizationType: 'verified' });
      const rows = await hub().db.query(
        "SELECT actor, action FROM audit_events WHERE subject_type = 'organization' AND subject_id = $1 ORDER BY id",
        [org.id],
      );
      assert.deepEqual(rows, [
        { actor: 'operator:bootstrap', action: 'organization.created' },
        { actor: 'operator:bootstrap', action: 'organization.updated' },
      ]);
    });

    // PostgreSQL only: one process owns a PGlite directory.
    if (backend === 'postgres')
      it('makes a revoked key or a changed endpoint count at once in every hub process', async () => {
        const other = await hub().twin();
        try {
          const org = await hub().createOrg({ travelEndpoint: 'https://before.example' });
          const second = await hub().admin('POST', `/v1/admin/organizations/${org.id}/api-keys`);
          // Both processes have the key and the organization cached.
          assert.equal(
            (await other.request('GET', '/v1/organizations/me', { key: second.body.apiKey })).status,
            200,
          );
          assert.equal(
            (await hub().request('GET', '/v1/organizations/me', { key: second.body.apiKey })).status,
            200,
          );
          await other.admin('DELETE', `/v1/admin/api-keys/${second.body.keyId}`);
          await other.request('PATCH', '/v1/organizations/me', {
            key: org.apiKey,
            body: { travelEndpoint: 'https://after.example' },
          });
          const deadline = Date.now() + 2000;
          let status = 200;
          while (status !== 401 && Date.now() < deadline) {
            status = (await hub().request('GET', '/v1/organizations/me', { key: second.body.apiKey })).status;
          }
          assert.equal(status, 401, 'the other process dropped the revoked key');
          const me = await hub().request('GET', '/v1/organizations/me', { key: org.apiKey });
          assert.equal(me.body.travelEndpoint, 'https://after.example');
        } finally {
          await other.stop();
        }
      });

    it('keeps every organization across a restart', async () => {
      const org = await hub().createOrg();
      await hub().stop();
      await hub().start();
      const me = await hub().request('GET', '/v1/organizations/me', { key: org.apiKey });
      assert.equal(me.status, 200);
      assert.equal(me.body.vaspDid, org.vaspDid);
    });
  },
  { HUB_ALLOW_PRIVATE_ENDPOINTS: 'false' },
);
