/**
 * The audit readers (SPEC §14): the operator's filters and keyset pages, an organization's view
 * of itself and its transactions (never another's), streamed exports in JSON Lines and CSV that
 * end with a checkpoint the audit key signed, and that no personal data reaches the trail.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { checkpointSigned } from '../../src/audit/checkpoint.js';
import { eachBackend } from '../harness.js';
import { mainRequest } from '../support/requests.js';

eachBackend(
  'audit readers',
  (hub) => {
    let a: Awaited<ReturnType<ReturnType<typeof hub>['createOrg']>>;
    let b: typeof a;
    let c: typeof a;
    let ref = '';
    const name = 'Zelda Quartermaine';

    it('records a transaction and key changes without personal data', async () => {
      a = await hub().createOrg();
      b = await hub().createOrg({ travelEndpoint: 'http://127.0.0.1:9/b' });
      c = await hub().createOrg();
      const init = await hub().request('POST', '/v1/transactions/initiate', {
        key: a.apiKey,
        body: mainRequest(b.vaspDid, name),
      });
      assert.equal(init.status, 200, init.text);
      ref = init.body.transactionRef;
      const pii = await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: a.apiKey });
      assert.equal(pii.status, 200, pii.text);
      for (let i = 0; i < 3; i++) {
        const k = await hub().request('POST', '/v1/organizations/me/api-keys', { key: c.apiKey, body: {} });
        assert.equal(k.status, 201);
      }
      const all = await hub().admin('GET', '/v1/admin/audit?format=jsonl');
      assert.ok(
        !all.text.includes('Zelda') && !all.text.includes('Quartermaine'),
        'no personal data in the trail',
      );
    });

    it('pages newest first with a cursor and filters by actor, action, transaction and organization', async () => {
      const first = await hub().admin('GET', '/v1/admin/audit?limit=2');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.events.length, 2);
      assert.ok(first.body.events[0].seq > first.body.events[1].seq);
      const second = await hub().admin('GET', `/v1/admin/audit?limit=2&cursor=${first.body.nextCursor}`);
      assert.equal(second.body.events[0].seq, first.body.events[1].seq - 1);

      const reads = await hub().admin(
        'GET',
        `/v1/admin/audit?action=transaction.pii_read&transactionRef=${ref}`,
      );
      assert.deepEqual(
        reads.body.events.map((e: any) => [e.actor, e.subjectId]),
        [[`org:${a.id}`, ref]],
      );
      const byActor = await hub().admin('GET', `/v1/admin/audit?actor=org:${c.id}`);
      assert.equal(byActor.body.events.length, 3);
      assert.ok(byActor.body.events.every((e: any) => e.action === 'api_key.created'));

      const now = new Date(Date.now() + 60_000).toISOString();
      const later = await hub().admin('GET', `/v1/admin/audit?from=${now}`);
      assert.deepEqual(later.body, { events: [], nextCursor: null });

      const aboutC = await hub().admin('GET', `/v1/admin/audit?organizationId=${c.id}`);
      assert.ok(aboutC.body.events.length >= 4, 'registered, and three keys');
      assert.ok(aboutC.body.events.every((e: any) => e.subjectType !== 'transaction'));
    });

    it('shows an organization what is about itself and its transactions, and nothing of others', async () => {
      // The beneficiary sees the originator's read of the transaction both are party to.
      const mine = await hub().request('GET', '/v1/audit?limit=100', { key: b.apiKey });
      assert.equal(mine.status, 200, mine.text);
      const refs = mine.body.events
        .filter((e: any) => e.subjectType === 'transaction')
        .map((e: any) => e.subjectId);
      assert.ok(refs.includes(ref));
      const others = await hub().request('GET', '/v1/audit?limit=100', { key: c.apiKey });
      assert.ok(!others.body.events.some((e: any) => e.subjectId === ref || e.actor === `org:${a.id}`));
      const forbidden = await hub().request('GET', `/v1/audit?organizationId=${b.id}`, { key: c.apiKey });
      assert.equal(forbidden.status, 400);
      assert.equal((await hub().request('GET', '/v1/admin/audit', { key: c.apiKey })).status, 403);
      assert.equal((await hub().admin('GET', '/v1/audit')).status, 403);
      const badCursor = await hub().admin('GET', '/v1/admin/audit?cursor=bm9wZQ');
      assert.deepEqual([badCursor.status, badCursor.body.errors[0].path], [400, '/querystring/cursor']);
    });

    it('exports JSON Lines and CSV that end with a checkpoint signed by the audit key', async () => {
      const cp = await hub().admin('GET', '/v1/admin/audit/checkpoint');
      assert.equal(cp.status, 200);
      assert.ok(checkpointSigned(cp.body));
      assert.ok(!checkpointSigned({ ...cp.body, seq: cp.body.seq + 1 }), 'the signature covers seq');

      const jsonl = await hub().request('GET', '/v1/audit?format=jsonl', { key: c.apiKey });
      assert.equal(jsonl.status, 200);
      const lines = jsonl.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const last = lines.pop();
      assert.ok(checkpointSigned(last.checkpoint));
      assert.equal(last.checkpoint.publicKey, cp.body.publicKey);
      assert.ok(lines.length >= 4 && lines.every((l) => l.seq <= last.checkpoint.seq));

      const csv = await hub().admin('GET', '/v1/admin/audit?format=csv');
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(csv.headers.get('content-disposition') ?? '', /attachment; filename="audit\.csv"/);
      const rows = csv.text.trim().split('\r\n');
      assert.equal(
        rows[0],
        'record,seq,at,actor,action,subjectType,subjectId,details,prevHash,hash,signature,publicKey',
      );
      assert.match(rows[1]!, /^event,1,/);
      // The public key's PEM spans lines inside its quoted field.
      assert.ok(csv.text.includes('\r\ncheckpoint,'));
    });
  },
  { HUB_WORKER: 'false' },
);
