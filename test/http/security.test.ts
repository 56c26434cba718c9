/**
 * Hardening (SPEC §13) through the HTTP API: scoped keys, named operators, guarded directory
 * changes, printable names, the NOTIFY limit for unverified organizations, and bounded answers.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import { eachBackend, type TestHub } from '../harness.js';
import { type Json, mainRequest, notifyRequest } from '../support/requests.js';

const audit = (hub: TestHub, action: string, subjectId: string) =>
  hub.db.query<{ actor: string; details: Json }>(
    'SELECT actor, details FROM audit_events WHERE action = $1 AND subject_id = $2 ORDER BY id',
    [action, subjectId],
  );

eachBackend(
  'hardening',
  (hub) => {
    it('gives a read-scoped key every GET, the personal data included, and nothing else', async () => {
      const org = await hub().createOrg({ travelEndpoint: 'https://a.example' });
      const beneficiary = await hub().createOrg({ travelEndpoint: 'https://b.example' });
      const issued = await hub().request('POST', '/v1/organizations/me/api-keys', {
        key: org.apiKey,
        body: { scope: 'read' },
      });
      assert.equal(issued.status, 201, issued.text);
      assert.equal(issued.body.scope, 'read');
      const read = issued.body.apiKey as string;
      const ref = (
        await hub().request('POST', '/v1/transactions/initiate', {
          key: org.apiKey,
          body: mainRequest(beneficiary.vaspDid),
        })
      ).body.transactionRef;
      for (const path of [
        '/v1/organizations',
        '/v1/organizations/me',
        `/v1/transactions/${ref}`,
        `/v1/transactions/${ref}/pii`,
      ]) {
        assert.equal((await hub().request('GET', path, { key: read })).status, 200, path);
      }
      const refused = [
        ['POST', '/v1/transactions/initiate', mainRequest(beneficiary.vaspDid)],
        ['POST', '/v1/transactions/tx-hash', { transactionRef: ref, txHash: '0x1' }],
        ['PATCH', '/v1/organizations/me', { name: 'Renamed by a reader' }],
        ['POST', '/v1/organizations/me/api-keys', {}],
        ['DELETE', `/v1/organizations/me/api-keys/${issued.body.keyId}`, undefined],
      ] as const;
      for (const [method, path, body] of refused) {
        const res = await hub().request(method, path, { key: read, body });
        assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
        assert.equal(res.body.code, 'FORBIDDEN');
      }
      const keys = (await hub().request('GET', '/v1/organizations/me/api-keys', { key: read })).body.apiKeys;
      assert.deepEqual(
        keys.map((k: Json) => [k.scope, k.current]),
        [
          ['full', false],
          ['read', true],
        ],
      );
    });

    it('issues full keys when no body is sent, as before scopes existed', async () => {
      const org = await hub().createOrg();
      const res = await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.scope, 'full');
      const admin = await hub().admin('POST', `/v1/admin/organizations/${org.id}/api-keys`, {
        scope: 'read',
      });
      assert.equal(admin.body.scope, 'read');
      const bad = await hub().admin('POST', `/v1/admin/organizations/${org.id}/api-keys`, { scope: 'write' });
      assert.equal(bad.status, 400);
    });

    it('lets the bootstrap operator create named operators, whose actions the audit names', async () => {
      const name = `Alice ${Date.now()}`;
      const created = await hub().admin('POST', '/v1/admin/operators', { name });
      assert.equal(created.status, 201, created.text);
      assert.match(created.body.apiKey, /^trh_op_/);
      assert.equal(created.body.operator.createdBy, 'operator:bootstrap');
      const alice = created.body.apiKey as string;
      const org = await hub().request('POST', '/v1/admin/organizations', {
        key: alice,
        body: { name: 'Made by Alice', vaspDid: `did:web:alice-${Date.now()}.example` },
      });
      assert.equal(org.status, 201, org.text);
      assert.deepEqual(
        (await audit(hub(), 'organization.created', org.body.organization.id)).map((a) => a.actor),
        [`operator:${created.body.operator.id}:${name}`],
      );
      const dup = await hub().admin('POST', '/v1/admin/operators', { name: name.toUpperCase() });
      assert.equal(dup.status, 409, 'names are unique among active operators, in any case');
      assert.equal((await hub().admin('POST', '/v1/admin/operators', { name: 'bootstrap' })).status, 400);
      assert.equal(
        (await hub().request('GET', '/v1/organizations', { key: alice })).status,
        403,
        'an operator key opens /v1/admin only',
      );
      const self = await hub().request('DELETE', `/v1/admin/operators/${created.body.operator.id}`, {
        key: alice,
      });
      assert.equal(self.status, 409, 'an operator cannot revoke itself');
      const revoked = await hub().admin('DELETE', `/v1/admin/operators/${created.body.operator.id}`);
      assert.equal(revoked.status, 204);
      assert.equal((await hub().request('GET', '/v1/admin/operators', { key: alice })).status, 401);
      const listed = (await hub().admin('GET', '/v1/admin/operators')).body.operators;
      assert.ok(listed.some((o: Json) => o.name === name && o.revokedAt !== null));
      assert.ok(!JSON.stringify(listed).includes(alice), 'keys are never listed');
    });

    it('audits a change of endpoint or key with old and new value and e-mails the contact address', async () => {
      const before = generateParticipantKeyPair().publicKeyPem;
      const org = await hub().createOrg({
        travelEndpoint: 'https://before.example',
        publicKey: before,
        contactEmail: 'security@vasp.example',
      });
      const after = generateParticipantKeyPair().publicKeyPem;
      const res = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: { travelEndpoint: 'https://after.example', publicKey: after },
      });
      assert.equal(res.status, 200, res.text);
      const [row] = await audit(hub(), 'organization.updated', org.id);
      assert.equal(row!.actor, `org:${org.id}`);
      assert.deepEqual(row!.details.changes, [
        { field: 'travelEndpoint', from: 'https://before.example', to: 'https://after.example' },
        { field: 'publicKey', from: before, to: after },
      ]);
      const emails = (await hub().admin('GET', '/v1/admin/emails')).body.emails.filter(
        (e: Json) => e.to === 'security@vasp.example',
      );
      assert.equal(emails.length, 1);
      assert.equal(emails[0].event, 'endpoint-changed');
      const quiet = await hub().createOrg({ travelEndpoint: 'https://quiet.example' });
      await hub().request('PATCH', '/v1/organizations/me', {
        key: quiet.apiKey,
        body: { travelEndpoint: 'https://quiet2.example' },
      });
      const after2 = (await hub().admin('GET', '/v1/admin/emails')).body.emails.filter(
        (e: Json) => e.event === 'endpoint-changed',
      );
      assert.equal(after2.length, 1, 'no contact address, no e-mail');
    });

    it('shows the contact address to the organization and the operator, never in the directory', async () => {
      const org = await hub().createOrg({ contactEmail: 'ops@vasp.example' });
      const me = await hub().request('GET', '/v1/organizations/me', { key: org.apiKey });
      assert.equal(me.body.contactEmail, 'ops@vasp.example');
      const dir = await hub().request('GET', '/v1/organizations', { key: org.apiKey });
      assert.ok(!dir.text.includes('ops@vasp.example'));
      assert.deepEqual(Object.keys(dir.body.organizations[0]).sort(), [
        'id',
        'name',
        'organizationType',
        'publicKey',
        'travelEndpoint',
        'vaspDid',
      ]);
      const bad = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: { contactEmail: 'not an address' },
      });
      assert.equal(bad.status, 400);
    });

    it('unverifies an organization that renames itself, but not one the operator renames', async () => {
      const org = await hub().createOrg({ organizationType: 'verified' });
      const byOperator = await hub().admin('PATCH', `/v1/admin/organizations/${org.id}`, {
        name: 'Operator chose this',
      });
      assert.equal(byOperator.body.organizationType, 'verified');
      const same = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: { name: 'Operator chose this' },
      });
      assert.equal(same.body.organizationType, 'verified', 'the same name is no rename');
      const renamed = await hub().request('PATCH', '/v1/organizations/me', {
        key: org.apiKey,
        body: { name: 'Big Bank' },
      });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.organizationType, 'unverified');
      const [row] = (await audit(hub(), 'organization.updated', org.id)).slice(-1);
      assert.equal(row!.details.unverified, 'renamed by the organization');
    });

    it('refuses names with control or bidirectional-override characters', async () => {
      for (const name of ['Exchange\u202Eevil', 'Line\nbreak', ' padded']) {
        const res = await hub().admin('POST', '/v1/admin/organizations', {
          name,
          vaspDid: 'did:web:bad-name.example',
        });
        assert.equal(res.status, 400, JSON.stringify(name));
        assert.equal(res.body.errors[0].path, '/name');
      }
    });

    it('lets an unverified organization start a limited number of NOTIFY transactions a day', async () => {
      const org = await hub().createOrg();
      for (let i = 0; i < 2; i++) {
        const res = await hub().request('POST', '/v1/transactions/initiate', {
          key: org.apiKey,
          body: notifyRequest(randomUUID()),
        });
        assert.equal(res.status, 200, res.text);
      }
      const third = await hub().request('POST', '/v1/transactions/initiate', {
        key: org.apiKey,
        body: notifyRequest(randomUUID()),
      });
      assert.equal(third.status, 429, third.text);
      assert.equal(third.body.code, 'RATE_LIMITED');
      assert.ok(Number(third.headers.get('retry-after')) > 3600);
      const main = await hub().request('POST', '/v1/transactions/initiate', {
        key: org.apiKey,
        body: mainRequest((await hub().createOrg({ travelEndpoint: 'https://b.example' })).vaspDid),
      });
      assert.equal(main.status, 200, 'other protocols are not limited');
      await hub().admin('PATCH', `/v1/admin/organizations/${org.id}`, { organizationType: 'verified' });
      const verified = await hub().request('POST', '/v1/transactions/initiate', {
        key: org.apiKey,
        body: notifyRequest(randomUUID()),
      });
      assert.equal(verified.status, 200, 'a verified organization is not limited');
    });

    it('lists at most 100 problems in one answer of at most 64 KiB, however many there are', async () => {
      const org = await hub().createOrg({ travelEndpoint: 'https://a.example' });
      const body = mainRequest('did:web:x.example');
      // Persons with a key that has no place: each is kept, and each is a problem (SPEC §18 reads an
      // empty object as absent).
      body.pii.originator.originatorPersons = Array.from({ length: 20_000 }, () => ({ x: 1 }));
      const res = await hub().request('POST', '/v1/transactions/initiate', { key: org.apiKey, body });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors.length, 100);
      assert.equal(res.body.truncated, true);
      assert.ok(Buffer.byteLength(res.text) <= 64 * 1024, `${Buffer.byteLength(res.text)} bytes`);
      const longKeys = mainRequest('did:web:x.example');
      for (let i = 0; i < 60; i++) longKeys[`\u0001${'é'.repeat(2000)}${i}`] = 1;
      const long = await hub().request('POST', '/v1/transactions/initiate', {
        key: org.apiKey,
        body: longKeys,
      });
      assert.equal(long.status, 400);
      assert.ok(Buffer.byteLength(long.text) <= 64 * 1024, `${Buffer.byteLength(long.text)} bytes`);
    });

    it('answers a body nested tens of thousands of levels deep with a 400, not a server error', async () => {
      const org = await hub().createOrg();
      const deep = (inner: string) => `${'['.repeat(60_000)}${inner}${']'.repeat(60_000)}`;
      for (const inner of ['"\\u0000"', '{"__proto__":1}', '1']) {
        const res = await hub().request('PATCH', '/v1/organizations/me', {
          key: org.apiKey,
          raw: `{"name":${deep(inner)}}`,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.status, 400, `${inner}: ${res.text.slice(0, 200)}`);
        assert.ok(Buffer.byteLength(res.text) <= 64 * 1024);
      }
      assert.equal((await hub().request('GET', '/healthz')).status, 200);
    });

    it('gives up on a request that does not arrive in 30 s, and on headers after 10 s', () => {
      assert.equal(hub().hub.app.server.requestTimeout, 30_000);
      assert.equal(hub().hub.app.server.headersTimeout, 10_000);
    });
  },
  { HUB_WORKER: 'false', HUB_NOTIFY_DAILY_LIMIT: '2' },
);

eachBackend(
  'rate limits',
  (hub) => {
    it('answers 429 to an address after too many failed authentications of any shape, but not to valid keys', async () => {
      const org = await hub().createOrg();
      const attempts = [undefined, 'nonsense', 'trh_op_unknown', `trh_${'x'.repeat(43)}`, '', 'short'];
      const statuses: number[] = [];
      for (const key of attempts) {
        statuses.push((await hub().request('GET', '/v1/organizations', { key: key ?? null })).status);
      }
      statuses.push((await hub().request('GET', '/v1/organizations', { key: null })).status);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
      assert.equal((await hub().request('GET', '/v1/organizations', { key: org.apiKey })).status, 200);
    });

    it('counts an organization’s requests together, whatever key it uses', async () => {
      await new Promise((r) => setTimeout(r, 1100)); // a fresh second
      const org = await hub().createOrg();
      const second = (await hub().request('POST', '/v1/organizations/me/api-keys', { key: org.apiKey })).body
        .apiKey;
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        statuses.push(
          (await hub().request('GET', '/v1/organizations/me', { key: i % 2 === 0 ? org.apiKey : second }))
            .status,
        );
      }
      assert.ok(statuses.filter((s) => s === 200).length <= 5, statuses.join(','));
      assert.ok(statuses.includes(429), statuses.join(','));
    });
  },
  { HUB_WORKER: 'false', HUB_RATE_LIMIT: '5' },
);
