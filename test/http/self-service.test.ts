import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { eachBackend } from '../harness.js';

interface KeyInfo {
  keyId: string;
  current: boolean;
  revokedAt: string | null;
}

function assertProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.code, code);
}

eachBackend('self-service keys and webhook secret', (hub) => {
  const get = (key: string) => hub().request('GET', '/v1/organizations/me/api-keys', { key });

  it('lists the caller’s own keys by prefix and marks the one in use', async () => {
    const org = await hub().createOrg();
    await hub().createOrg(); // another organization's key must not appear
    const res = await get(org.apiKey);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.apiKeys.length, 1);
    const [key] = res.body.apiKeys;
    assert.deepEqual(Object.keys(key).sort(), [
      'createdAt',
      'current',
      'keyId',
      'label',
      'owner',
      'prefix',
      'revokedAt',
      'scope',
    ]);
    assert.equal(key.prefix, org.apiKey.slice(0, 12));
    assert.equal(key.current, true);
    assert.equal(key.revokedAt, null);
    assert.ok(!res.text.includes(org.apiKey), 'the key itself is never shown again');
  });

  it('issues another key once, which then works and is listed but not current', async () => {
    const org = await hub().createOrg();
    const created = await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.apiKey, /^trh_[A-Za-z0-9_-]{43}$/);
    const me = await hub().request('GET', '/v1/organizations/me', { key: created.body.apiKey });
    assert.equal(me.body.id, org.id);
    const list = await get(org.apiKey);
    assert.deepEqual(
      list.body.apiKeys.map((k: KeyInfo) => [k.keyId === created.body.keyId, k.current]).sort(),
      [
        [false, true],
        [true, false],
      ],
    );
    assert.ok(!list.text.includes(created.body.apiKey));
    const audit = await hub().db.query(
      "SELECT actor FROM audit_events WHERE action = 'api_key.created' AND subject_id = $1",
      [created.body.keyId],
    );
    assert.deepEqual(audit, [{ actor: `org:${org.id}` }]);
  });

  it('revokes its own other key, after which that key is refused', async () => {
    const org = await hub().createOrg();
    const second = (await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey })).body;
    const del = await hub().request('DELETE', `/v1/organizations/me/api-keys/${second.keyId}`, {
      key: org.apiKey,
    });
    assert.equal(del.status, 204, del.text);
    assertProblem(
      await hub().request('GET', '/v1/organizations/me', { key: second.apiKey }),
      401,
      'UNAUTHENTICATED',
    );
    const listed = (await get(org.apiKey)).body.apiKeys.find((k: KeyInfo) => k.keyId === second.keyId);
    assert.ok(listed.revokedAt, 'a revoked key stays listed with its revocation time');
  });

  it('refuses to revoke the key making the request, so the organization keeps a working key', async () => {
    const org = await hub().createOrg();
    const [own] = (await get(org.apiKey)).body.apiKeys;
    const res = await hub().request('DELETE', `/v1/organizations/me/api-keys/${own.keyId}`, {
      key: org.apiKey,
    });
    assertProblem(res, 409, 'INVALID_STATE');
    assert.equal((await hub().request('GET', '/v1/organizations/me', { key: org.apiKey })).status, 200);
  });

  it('answers 404 for a key of another organization and for an unknown key, revoking nothing', async () => {
    const org = await hub().createOrg();
    const other = await hub().createOrg();
    const [theirs] = (await get(other.apiKey)).body.apiKeys;
    for (const keyId of [theirs.keyId, randomUUID()]) {
      assertProblem(
        await hub().request('DELETE', `/v1/organizations/me/api-keys/${keyId}`, { key: org.apiKey }),
        404,
        'NOT_FOUND',
      );
    }
    assert.equal((await hub().request('GET', '/v1/organizations/me', { key: other.apiKey })).status, 200);
    assertProblem(
      await hub().request('DELETE', '/v1/organizations/me/api-keys/not-a-uuid', { key: org.apiKey }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('rotates its own webhook secret, shown once, the previous one signing for 24 hours', async () => {
    const org = await hub().createOrg();
    const res = await hub().request('POST', '/v1/organizations/me/webhook-secret', { key: org.apiKey });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.webhookSecret, /^whsec_/);
    assert.ok(Date.parse(res.body.previousSecretValidUntil) > Date.now() + 23 * 3600e3);
    assert.deepEqual(await hub().hub.directory.webhookSecrets(org.id), [
      res.body.webhookSecret,
      org.webhookSecret,
    ]);
    const audit = await hub().db.query(
      "SELECT actor FROM audit_events WHERE action = 'webhook_secret.rotated' AND subject_id = $1",
      [org.id],
    );
    assert.deepEqual(audit, [{ actor: `org:${org.id}` }]);
  });

  it('keeps only the previous secret signing when it rotates twice', async () => {
    const org = await hub().createOrg();
    const first = await hub().request('POST', '/v1/organizations/me/webhook-secret', { key: org.apiKey });
    const second = await hub().request('POST', '/v1/organizations/me/webhook-secret', { key: org.apiKey });
    assert.equal(second.status, 201, second.text);
    // A leaked original secret is retired by rotating twice, and secrets never pile up.
    assert.deepEqual(await hub().hub.directory.webhookSecrets(org.id), [
      second.body.webhookSecret,
      first.body.webhookSecret,
    ]);
  });

  it('keeps one open secret when rotations overlap, so at most two sign', async () => {
    const org = await hub().createOrg();
    const rotated = await Promise.all(
      [1, 2, 3, 4].map(() => hub().admin('POST', `/v1/admin/organizations/${org.id}/webhook-secret`)),
    );
    assert.deepEqual(
      rotated.map((r) => r.status),
      [201, 201, 201, 201],
    );
    const open = await hub().db.query(
      'SELECT count(*)::int AS n FROM webhook_secrets WHERE organization_id = $1 AND expires_at IS NULL',
      [org.id],
    );
    assert.equal(open[0]!.n, 1, 'exactly one secret without an end');
    const signing = await hub().hub.directory.webhookSecrets(org.id);
    assert.equal(signing.length, 2);
    const issued = rotated.map((r) => r.body.webhookSecret as string);
    assert.ok(issued.includes(signing[0]!) && issued.includes(signing[1]!), 'the last two rotations sign');
  });

  it('leaves a working key when two keys of the organization revoke each other at once', async () => {
    for (let round = 0; round < 5; round++) {
      const org = await hub().createOrg();
      const [first] = (await hub().request('GET', '/v1/organizations/me/api-keys', { key: org.apiKey })).body
        .apiKeys;
      const second = (await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey })).body;
      const answers = await Promise.all([
        hub().request('DELETE', `/v1/organizations/me/api-keys/${second.keyId}`, { key: org.apiKey }),
        hub().request('DELETE', `/v1/organizations/me/api-keys/${first.keyId}`, { key: second.apiKey }),
      ]);
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [204, 401], `round ${round}: one revocation wins, the other's key is gone`);
      const alive = await Promise.all(
        [org.apiKey, second.apiKey].map(
          async (key) => (await hub().request('GET', '/v1/organizations/me', { key })).status,
        ),
      );
      assert.deepEqual(alive.sort(), [200, 401], `round ${round}: exactly one key still works`);
    }
  });

  it('keeps both of two directory changes made at once', async () => {
    for (let round = 0; round < 5; round++) {
      const org = await hub().createOrg({ publicKey: generateParticipantKeyPair().publicKeyPem });
      const [removed, renamed] = await Promise.all([
        hub().admin('PATCH', `/v1/admin/organizations/${org.id}`, { publicKey: null }),
        hub().request('PATCH', '/v1/organizations/me', {
          key: org.apiKey,
          body: { name: `Renamed ${round}` },
        }),
      ]);
      assert.equal(removed.status, 200, removed.text);
      assert.equal(renamed.status, 200, renamed.text);
      const now = (await hub().request('GET', '/v1/organizations/me', { key: org.apiKey })).body;
      assert.equal(now.publicKey, null, `round ${round}: the removed key stays removed`);
      assert.equal(now.name, `Renamed ${round}`, `round ${round}: the rename holds`);
    }
  });

  it('holds at most 50 active API keys per organization', async () => {
    const org = await hub().createOrg();
    const issued: string[] = [];
    for (let i = 1; i < 50; i++) {
      const res = await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey });
      assert.equal(res.status, 201, res.text);
      issued.push(res.body.keyId);
    }
    const over = await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey });
    assertProblem(over, 409, 'INVALID_STATE');
    assert.match(over.body.detail, /50 active API keys/);
    assertProblem(
      await hub().admin('POST', `/v1/admin/organizations/${org.id}/api-keys`),
      409,
      'INVALID_STATE',
    );
    const revoked = await hub().request('DELETE', `/v1/organizations/me/api-keys/${issued[0]}`, {
      key: org.apiKey,
    });
    assert.equal(revoked.status, 204);
    const again = await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey });
    assert.equal(again.status, 201, 'room again once one is revoked');
  });

  it('needs an organization key: none is 401, the operator key is 403', async () => {
    for (const [method, path] of [
      ['GET', '/v1/organizations/me/api-keys'],
      ['POST', '/v1/organizations/me/api-keys'],
      ['DELETE', `/v1/organizations/me/api-keys/${randomUUID()}`],
      ['POST', '/v1/organizations/me/webhook-secret'],
    ] as const) {
      assertProblem(await hub().request(method, path), 401, 'UNAUTHENTICATED');
      assertProblem(await hub().admin(method, path), 403, 'FORBIDDEN');
    }
  });
});
