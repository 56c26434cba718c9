/**
 * Retention and erasure (SPEC §14) through HTTP and the raw database: with HUB_RETENTION=2s the
 * worker's sweep erases a declined transaction's personal data, its sealed reasons and the
 * Idempotency-Key answers about it; a search of every text, bytea and json column of every table
 * then finds neither the name that was sent, nor the reason, nor the sealed blobs or the data key
 * they wrapped, while the metadata and the history stay. An operator's erase-pii does the same at
 * once. On PGlite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { toBuffer } from '../../src/db/database.js';
import { eachBackend, type OrgFixture, type TestHub } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { mainRequest, uniqueName } from '../support/requests.js';

const receivers: Receiver[] = [];
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** Where in the database a needle is: `table.column` for every text, json or bytea column holding it. */
async function findEverywhere(
  hub: TestHub,
  needles: { text?: string[]; bytes?: Buffer[] },
): Promise<string[]> {
  const columns = await hub.db.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'bytea', 'ARRAY')`,
  );
  assert.ok(columns.some((c) => c.table_name === 'transactions' && c.column_name === 'sealed_pii'));
  const found: string[] = [];
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    const col = `"${column}"`;
    if (type === 'bytea') {
      // Text as its UTF-8 bytes, and the raw bytes.
      const all = [...(needles.text ?? []).map((t) => Buffer.from(t, 'utf8')), ...(needles.bytes ?? [])];
      for (const bytes of all) {
        const rows = await hub.db.query(
          `SELECT 1 FROM "${table}" WHERE position($1::bytea in ${col}) > 0 LIMIT 1`,
          [bytes],
        );
        if (rows.length > 0) found.push(`${table}.${column}`);
      }
      continue;
    }
    // Text, and the bytes as hex or base64 text.
    const strings = [
      ...(needles.text ?? []),
      ...(needles.bytes ?? []).flatMap((b) => [b.toString('hex'), b.toString('base64')]),
    ];
    for (const text of strings) {
      const rows = await hub.db.query(
        `SELECT 1 FROM "${table}" WHERE position($1 in ${col}::text) > 0 LIMIT 1`,
        [text],
      );
      if (rows.length > 0) found.push(`${table}.${column} (text)`);
    }
  }
  return found;
}

/** A declined MAIN transaction with a keyed decline, moved along without the worker. */
async function declined(hub: TestHub, originator: OrgFixture, beneficiary: OrgFixture) {
  const name = uniqueName();
  const reasonText = `Listed person ${uniqueName()}`;
  const init = await hub.request('POST', '/v1/transactions/initiate', {
    key: originator.apiKey,
    body: mainRequest(beneficiary.vaspDid, name),
    headers: { 'idempotency-key': `init-${name}` },
  });
  assert.equal(init.status, 200, init.text);
  const ref = init.body.transactionRef as string;
  await hub.acknowledgeReceived(ref);
  const confirm = await hub.request('POST', '/v1/transactions/confirm', {
    key: originator.apiKey,
    body: { transactionRef: ref },
  });
  assert.equal(confirm.status, 200, confirm.text);
  const decline = await hub.request('POST', '/v1/transactions/decline', {
    key: beneficiary.apiKey,
    body: { transactionRef: ref, reason: { category: 'SANCTIONS_MATCH', description: reasonText } },
    headers: { 'idempotency-key': `decline-${name}` },
  });
  assert.equal(decline.status, 200, decline.text);
  const [t] = await hub.db.query('SELECT sealed_pii, sealed_reason FROM transactions WHERE ref = $1', [ref]);
  const blob = toBuffer(t!.sealed_pii);
  const reasonBlob = toBuffer(t!.sealed_reason);
  return {
    ref,
    name,
    reasonText,
    needles: {
      text: [name, reasonText],
      // the sealed personal data, the data key it wraps (bytes 21..53 of a version 2 blob), the sealed reason
      bytes: [blob, blob.subarray(21, 53), reasonBlob, reasonBlob.subarray(21, 53)],
    },
  };
}

async function parties(hub: TestHub) {
  const receiver = await Receiver.start();
  receivers.push(receiver);
  const originator = await hub.createOrg({ travelEndpoint: `${receiver.url}/orig` });
  const beneficiary = await hub.createOrg({ travelEndpoint: `${receiver.url}/bene` });
  return { originator, beneficiary };
}

async function assertErased(hub: TestHub, originator: OrgFixture, ref: string, historyBefore: unknown) {
  const pii = await hub.request('GET', `/v1/transactions/${ref}/pii`, { key: originator.apiKey });
  assert.equal(pii.status, 410, pii.text);
  assert.equal(pii.body.code, 'PII_ERASED');
  const read = await hub.request('GET', `/v1/transactions/${ref}`, { key: originator.apiKey });
  assert.equal(read.status, 200);
  assert.equal(read.body.status, 'DECLINED');
  assert.match(read.body.piiErasedAt, /^\d{4}-\d\d-\d\dT/);
  assert.equal(read.body.declineReason, undefined);
  assert.equal(read.body.transactionAmount, '1250.500001', 'the metadata stays');
  assert.deepEqual(read.body.history, historyBefore, 'the history stays');
  const list = await hub.request('GET', '/v1/transactions?role=originator', { key: originator.apiKey });
  assert.equal(
    list.body.transactions.find((t: { transactionRef: string }) => t.transactionRef === ref).piiErasedAt,
    read.body.piiErasedAt,
  );
  return read.body.piiErasedAt as string;
}

eachBackend(
  'retention: the worker erases personal data after HUB_RETENTION',
  (hub) => {
    it('leaves nothing of the personal data, the reason, the sealed blobs or their data keys in any table', async () => {
      const { originator, beneficiary } = await parties(hub());
      const t = await declined(hub(), originator, beneficiary);
      const history = (await hub().request('GET', `/v1/transactions/${t.ref}`, { key: originator.apiKey }))
        .body.history;
      assert.deepEqual(
        history.map((h: { status: string }) => h.status),
        ['NEW', 'RECEIVER_NOTIFIED', 'CONFIRMED', 'DECLINED'],
      );
      const before = await findEverywhere(hub(), t.needles);
      assert.ok(
        before.includes('transactions.sealed_pii'),
        'the search finds the sealed blob while it is there',
      );
      assert.ok(before.includes('transaction_history.sealed_reason'), before.join(', '));
      const answers = await hub().db.query(
        `SELECT idempotency_key FROM idempotency_keys WHERE idempotency_key IN ($1, $2)`,
        [`init-${t.name}`, `decline-${t.name}`],
      );
      assert.equal(answers.length, 2);

      await hub().hub.background.start(); // the worker, with its retention sweep
      await eventually(
        async () =>
          (await hub().request('GET', `/v1/transactions/${t.ref}`, { key: originator.apiKey })).body
            .piiErasedAt,
        'the retention sweep',
        30_000,
      );
      await assertErased(hub(), originator, t.ref, history);
      assert.deepEqual(await findEverywhere(hub(), t.needles), []);
      const left = await hub().db.query(
        `SELECT idempotency_key FROM idempotency_keys WHERE idempotency_key IN ($1, $2)`,
        [`init-${t.name}`, `decline-${t.name}`],
      );
      assert.deepEqual(left, [], 'the Idempotency-Key answers about it are purged');
      const audit = await hub().db.query<{ actor: string; details: { cause: string } }>(
        `SELECT actor, details FROM audit_events WHERE action = 'transaction.pii_erased' AND subject_id = $1`,
        [t.ref],
      );
      assert.equal(audit.length, 1, 'erased exactly once');
      assert.equal(audit[0]!.actor, 'hub');
      assert.equal(audit[0]!.details.cause, 'retention');
    });
  },
  { HUB_RETENTION: '2s', HUB_WORKER: 'false' },
);

eachBackend(
  'erase-pii: an operator erases one transaction at once',
  (hub) => {
    it('erases at once, audited with the operator and the reason; a repeat changes nothing', async () => {
      const { originator, beneficiary } = await parties(hub());
      const t = await declined(hub(), originator, beneficiary);
      const other = await declined(hub(), originator, beneficiary);
      // A review note may name the customer too: it goes with the personal data.
      const noted = await hub().request('POST', `/v1/transactions/${t.ref}/review`, {
        key: beneficiary.apiKey,
        body: { state: 'escalated', note: `Matches ${t.name}` },
      });
      assert.equal(noted.status, 200, noted.text);
      const history = (await hub().request('GET', `/v1/transactions/${t.ref}`, { key: originator.apiKey }))
        .body.history;
      const res = await hub().admin('POST', `/v1/admin/transactions/${t.ref}/erase-pii`, {
        reason: 'Data-subject erasure request 2026-114',
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.transactionRef, t.ref);
      const at = await assertErased(hub(), originator, t.ref, history);
      assert.equal(res.body.piiErasedAt, at);
      assert.deepEqual(await findEverywhere(hub(), t.needles), []);
      const review = (await hub().request('GET', `/v1/transactions/${t.ref}`, { key: beneficiary.apiKey }))
        .body.review;
      assert.deepEqual(
        review.notes.map((n: { by: unknown; text: unknown }) => [n.by, n.text]),
        [[{ id: null, name: 'API key' }, null]],
        'the note’s text is erased; who wrote it and when stay',
      );
      assert.equal(review.state, 'escalated');
      const again = await hub().admin('POST', `/v1/admin/transactions/${t.ref}/erase-pii`, {
        reason: 'again',
      });
      assert.equal(again.status, 200);
      assert.equal(again.body.piiErasedAt, at);
      const audit = await hub().db.query<{ actor: string; details: { cause: string; reason: string } }>(
        `SELECT actor, details FROM audit_events WHERE action = 'transaction.pii_erased' AND subject_id = $1`,
        [t.ref],
      );
      assert.deepEqual(
        audit.map((a) => [a.actor, a.details.cause, a.details.reason]),
        [['operator:bootstrap', 'operator', 'Data-subject erasure request 2026-114']],
      );
      // The other transaction is untouched.
      const kept = await hub().request('GET', `/v1/transactions/${other.ref}/pii`, {
        key: originator.apiKey,
      });
      assert.equal(kept.status, 200);
      assert.ok(kept.text.includes(other.name));
      assert.ok((await findEverywhere(hub(), other.needles)).includes('transactions.sealed_pii'));
    });

    it('refuses an unknown transaction, a missing reason and an organization key', async () => {
      const { originator, beneficiary } = await parties(hub());
      const t = await declined(hub(), originator, beneficiary);
      const unknown = await hub().admin(
        'POST',
        '/v1/admin/transactions/0b9c7a4e-5d1f-4c2b-9a51-3f0e6d2c8b17/erase-pii',
        {
          reason: 'x',
        },
      );
      assert.equal(unknown.status, 404);
      const noReason = await hub().admin('POST', `/v1/admin/transactions/${t.ref}/erase-pii`, {});
      assert.equal(noReason.status, 400);
      const asOrg = await hub().request('POST', `/v1/admin/transactions/${t.ref}/erase-pii`, {
        key: originator.apiKey,
        body: { reason: 'x' },
      });
      assert.equal(asOrg.status, 403);
      const pii = await hub().request('GET', `/v1/transactions/${t.ref}/pii`, { key: originator.apiKey });
      assert.equal(pii.status, 200, 'nothing was erased');
    });
  },
  { HUB_WORKER: 'false' },
);
