/**
 * Reviews and the "needs my action" queue (SPEC §17) through the API: each party's own review
 * (state, assignee, notes sealed at rest and never shown to the counterparty), who may change it,
 * its audit rows, the list filters, and queue counts that equal the lists they link to.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { toBuffer } from '../../src/db/database.js';
import { eachBackend, type OrgFixture, type TestHub } from '../harness.js';
import { addPerson, as, type Session, signIn } from '../support/people.js';
import { eventually } from '../support/receiver.js';
import { mainRequest, notifyRequest } from '../support/requests.js';
import { decodeBody, SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
after(() => smtp.close());

/** A MAIN transfer from `from` to `to`, acknowledged by the beneficiary (RECEIVER_NOTIFIED). */
async function notified(hub: TestHub, from: OrgFixture, to: OrgFixture): Promise<string> {
  const res = await hub.request('POST', '/v1/transactions/initiate', {
    key: from.apiKey,
    body: mainRequest(to.vaspDid),
  });
  assert.equal(res.status, 200, res.text);
  await hub.acknowledgeReceived(res.body.transactionRef);
  return res.body.transactionRef;
}

async function confirmed(hub: TestHub, from: OrgFixture, to: OrgFixture): Promise<string> {
  const ref = await notified(hub, from, to);
  const res = await hub.request('POST', '/v1/transactions/confirm', {
    key: from.apiKey,
    body: { transactionRef: ref },
  });
  assert.equal(res.status, 200, res.text);
  return ref;
}

/** Every row of a list filter, page by page. */
async function listAll(hub: TestHub, key: string, query: string): Promise<string[]> {
  const refs: string[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `${query}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await hub.request('GET', `/v1/transactions?${q}`, { key });
    assert.equal(res.status, 200, res.text);
    refs.push(...res.body.transactions.map((t: { transactionRef: string }) => t.transactionRef));
    cursor = res.body.nextCursor;
  } while (cursor);
  return refs;
}

eachBackend(
  'Reviews and the queue',
  (hub) => {
    let originator: OrgFixture;
    let beneficiary: OrgFixture;
    let stranger: OrgFixture;
    let analyst: { id: string; email: string };
    let analystSession: Session;
    let viewerSession: Session;
    let strangerAnalyst: { id: string };
    let readKey: string;

    before(async () => {
      originator = await hub().createOrg();
      // Nothing listens on port 9: every message to the beneficiary fails (and is retried).
      beneficiary = await hub().createOrg({ travelEndpoint: 'http://127.0.0.1:9/bene' });
      stranger = await hub().createOrg();
      analyst = await addPerson(hub(), smtp, { key: beneficiary.apiKey }, 'analyst');
      analystSession = (await signIn(hub(), analyst.email)).session!;
      const viewer = await addPerson(hub(), smtp, { key: beneficiary.apiKey }, 'viewer');
      viewerSession = (await signIn(hub(), viewer.email)).session!;
      strangerAnalyst = await addPerson(hub(), smtp, { key: stranger.apiKey }, 'analyst');
      const issued = await hub().admin('POST', `/v1/admin/organizations/${beneficiary.id}/api-keys`, {
        scope: 'read',
      });
      assert.equal(issued.status, 201, issued.text);
      readKey = issued.body.apiKey;
    });

    it('reviews a received transfer: assign, note, clear; a transaction never reviewed reads as open', async () => {
      const ref = await confirmed(hub(), originator, beneficiary);
      const fresh = await hub().request('GET', `/v1/transactions/${ref}`, { key: beneficiary.apiKey });
      assert.equal(fresh.status, 200, fresh.text);
      assert.deepEqual(fresh.body.review, { state: 'open', assignee: null, notes: [], updatedAt: null });

      const note = `Screened the originator ${randomBytes(6).toString('hex')}: no sanctions match`;
      const taken = await as(hub(), analystSession, 'POST', `/v1/transactions/${ref}/review`, {
        state: 'in_review',
        assigneeUserId: analyst.id,
        note,
      });
      assert.equal(taken.status, 200, taken.text);
      assert.equal(taken.body.state, 'in_review');
      assert.deepEqual(taken.body.assignee, { id: analyst.id, name: 'Person analyst' });
      assert.equal(taken.body.notes.length, 1);
      assert.deepEqual(taken.body.notes[0].by, { id: analyst.id, name: 'Person analyst' });
      assert.equal(taken.body.notes[0].text, note);
      assert.ok(taken.body.updatedAt);

      // A full key clears it; the assignee stays unless the request names another (or null).
      const cleared = await hub().request('POST', `/v1/transactions/${ref}/review`, {
        key: beneficiary.apiKey,
        body: { state: 'cleared', note: 'Cleared by the screening job' },
      });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.state, 'cleared');
      assert.equal(cleared.body.assignee.id, analyst.id);
      assert.deepEqual(
        cleared.body.notes.map((n: { by: unknown; text: string }) => [n.by, n.text]),
        [
          [{ id: analyst.id, name: 'Person analyst' }, note],
          [{ id: null, name: 'API key' }, 'Cleared by the screening job'],
        ],
      );
      // Any state may follow any other: reopened, unassigned.
      const reopened = await hub().request('POST', `/v1/transactions/${ref}/review`, {
        key: beneficiary.apiKey,
        body: { state: 'open', assigneeUserId: null },
      });
      assert.equal(reopened.status, 200, reopened.text);
      assert.deepEqual([reopened.body.state, reopened.body.assignee], ['open', null]);

      const read = await hub().request('GET', `/v1/transactions/${ref}`, { key: beneficiary.apiKey });
      assert.equal(read.body.review.state, 'open');
      assert.equal(read.body.review.notes.length, 2);
    });

    it('seals notes at rest and never shows them, or the review, to the counterparty', async () => {
      const ref = await confirmed(hub(), originator, beneficiary);
      const note = `Customer Zyx${randomBytes(6).toString('hex')} looks like a match`;
      const res = await as(hub(), analystSession, 'POST', `/v1/transactions/${ref}/review`, {
        state: 'escalated',
        note,
      });
      assert.equal(res.status, 200, res.text);

      const rows = await hub().db.query('SELECT sealed_text FROM review_notes WHERE transaction_ref = $1', [
        ref,
      ]);
      assert.equal(rows.length, 1);
      const raw = toBuffer(rows[0]!.sealed_text);
      assert.ok(!raw.includes(Buffer.from(note)), 'no plaintext in the column');
      assert.ok(!raw.includes(Buffer.from(note.slice(9, 21))), 'not even a part of it');

      const theirs = await hub().request('GET', `/v1/transactions/${ref}`, { key: originator.apiKey });
      assert.equal(theirs.status, 200, theirs.text);
      assert.deepEqual(theirs.body.review, { state: 'open', assignee: null, notes: [], updatedAt: null });
      assert.ok(!theirs.text.includes(note));
      // The originator's own review is a separate one.
      const own = await hub().request('POST', `/v1/transactions/${ref}/review`, {
        key: originator.apiKey,
        body: { state: 'cleared', note: 'Our side is fine' },
      });
      assert.equal(own.status, 200, own.text);
      assert.deepEqual(
        own.body.notes.map((n: { text: string }) => n.text),
        ['Our side is fine'],
      );
      const mine = await hub().request('GET', `/v1/transactions/${ref}`, { key: beneficiary.apiKey });
      assert.equal(mine.body.review.state, 'escalated');
      assert.deepEqual(
        mine.body.review.notes.map((n: { text: string }) => n.text),
        [note],
      );
      // Nor through the lists, nor the audit the counterparty reads.
      const escalated = await listAll(hub(), originator.apiKey, 'review=escalated');
      assert.ok(!escalated.includes(ref), 'the review filter reads the caller’s own review');
      const theirAudit = await hub().request('GET', `/v1/audit?transactionRef=${ref}`, {
        key: originator.apiKey,
      });
      assert.equal(theirAudit.status, 200, theirAudit.text);
      const reviewRows = theirAudit.body.events.filter(
        (e: { action: string }) => e.action === 'transaction.review_changed',
      );
      assert.equal(reviewRows.length, 1, 'only its own review row');
      assert.equal(reviewRows[0].details.organizationId, originator.id);
    });

    it('shows a viewer the state and assignee but not the note text, and refuses it the change (403)', async () => {
      const ref = await confirmed(hub(), originator, beneficiary);
      await as(hub(), analystSession, 'POST', `/v1/transactions/${ref}/review`, {
        state: 'in_review',
        assigneeUserId: analyst.id,
        note: 'Name and date of birth match the customer file',
      });
      const seen = await as(hub(), viewerSession, 'GET', `/v1/transactions/${ref}`);
      assert.equal(seen.status, 200, seen.text);
      assert.equal(seen.body.review.state, 'in_review');
      assert.equal(seen.body.review.assignee.id, analyst.id);
      assert.equal(seen.body.review.notes.length, 1);
      assert.equal(seen.body.review.notes[0].text, null);
      assert.ok(!seen.text.includes('date of birth'));

      const byViewer = await as(hub(), viewerSession, 'POST', `/v1/transactions/${ref}/review`, {
        state: 'cleared',
      });
      assert.equal(byViewer.status, 403, byViewer.text);
      assert.equal(byViewer.body.code, 'FORBIDDEN');
      const byReadKey = await hub().request('POST', `/v1/transactions/${ref}/review`, {
        key: readKey,
        body: { state: 'cleared' },
      });
      assert.equal(byReadKey.status, 403, byReadKey.text);
      // A read key reads the note text: keys of either scope read personal data (SPEC §17).
      const byKey = await hub().request('GET', `/v1/transactions/${ref}`, { key: readKey });
      assert.equal(byKey.body.review.notes[0].text, 'Name and date of birth match the customer file');
      const after = await hub().request('GET', `/v1/transactions/${ref}`, { key: beneficiary.apiKey });
      assert.equal(after.body.review.state, 'in_review', 'nothing changed');
    });

    it('refuses an assignee outside the organization, a viewer as assignee, a stranger, and bad input', async () => {
      const ref = await confirmed(hub(), originator, beneficiary);
      const path = `/v1/transactions/${ref}/review`;
      const foreign = await hub().request('POST', path, {
        key: beneficiary.apiKey,
        body: { state: 'in_review', assigneeUserId: strangerAnalyst.id },
      });
      assert.equal(foreign.status, 400, foreign.text);
      assert.equal(foreign.body.code, 'VALIDATION_FAILED');
      assert.equal(foreign.body.errors[0].path, '/assigneeUserId');
      assert.match(foreign.body.errors[0].message, /analyst or admin of your organization/);
      const viewerAsAssignee = await hub().request('POST', path, {
        key: beneficiary.apiKey,
        body: { state: 'in_review', assigneeUserId: viewerSession.user.id },
      });
      assert.equal(viewerAsAssignee.status, 400, viewerAsAssignee.text);
      const unknownUser = await hub().request('POST', path, {
        key: beneficiary.apiKey,
        body: { state: 'in_review', assigneeUserId: randomUUID() },
      });
      assert.equal(unknownUser.status, 400, unknownUser.text);

      const byStranger = await hub().request('POST', path, {
        key: stranger.apiKey,
        body: { state: 'cleared' },
      });
      assert.equal(byStranger.status, 404, byStranger.text);
      const unknownRef = await hub().request('POST', `/v1/transactions/${randomUUID()}/review`, {
        key: beneficiary.apiKey,
        body: { state: 'cleared' },
      });
      assert.equal(unknownRef.status, 404, unknownRef.text);
      for (const body of [
        { state: 'done' },
        { state: 'cleared', note: '' },
        { state: 'cleared', note: 'x'.repeat(2001) },
        { state: 'cleared', extra: 1 },
        {},
      ]) {
        const res = await hub().request('POST', path, { key: beneficiary.apiKey, body });
        assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 60)}: ${res.text}`);
      }
      const untouched = await hub().request('GET', `/v1/transactions/${ref}`, { key: beneficiary.apiKey });
      assert.equal(untouched.body.review.updatedAt, null, 'a refused change writes nothing');
      const assignees = await as(hub(), viewerSession, 'GET', '/v1/reviews/assignees');
      assert.equal(assignees.status, 200, assignees.text);
      assert.deepEqual(
        assignees.body.assignees.map((a: { id: string }) => a.id).sort(),
        [analyst.id].sort(),
        'analysts and admins of the organization only',
      );
    });

    it('audits every change in its own row, as the person or the organization, without the note', async () => {
      const ref = await confirmed(hub(), originator, beneficiary);
      const secret = `note-${randomBytes(6).toString('hex')}`;
      await as(hub(), analystSession, 'POST', `/v1/transactions/${ref}/review`, {
        state: 'in_review',
        note: secret,
      });
      await hub().request('POST', `/v1/transactions/${ref}/review`, {
        key: beneficiary.apiKey,
        body: { state: 'cleared', assigneeUserId: analyst.id },
      });
      const audit = await hub().admin(
        'GET',
        `/v1/admin/audit?transactionRef=${ref}&action=transaction.review_changed`,
      );
      assert.equal(audit.status, 200, audit.text);
      const rows = [...audit.body.events].reverse();
      assert.deepEqual(
        rows.map((e: { actor: string; details: Record<string, unknown> }) => [
          e.actor,
          e.details.from,
          e.details.to,
          e.details.noteAdded ?? false,
          e.details.assigneeUserId ?? null,
        ]),
        [
          [`user:${analyst.id}`, 'open', 'in_review', true, null],
          [`org:${beneficiary.id}`, 'in_review', 'cleared', false, analyst.id],
        ],
      );
      assert.ok(!audit.text.includes(secret), 'the note is never in the audit');
    });

    it('counts what needs the caller, each count equal to the list it links to', async () => {
      // A fresh pair, so that the counts are exactly these transfers.
      const a = await hub().createOrg();
      const b = await hub().createOrg({ travelEndpoint: 'http://127.0.0.1:9/b' });
      const toConfirm = [await notified(hub(), a, b), await notified(hub(), a, b)];
      const received = [
        await confirmed(hub(), a, b),
        await confirmed(hub(), a, b),
        await confirmed(hub(), a, b),
      ];
      // b clears one received transfer and escalates another; a takes one of its own into review.
      await hub().request('POST', `/v1/transactions/${received[0]}/review`, {
        key: b.apiKey,
        body: { state: 'cleared' },
      });
      await hub().request('POST', `/v1/transactions/${received[1]}/review`, {
        key: b.apiKey,
        body: { state: 'escalated' },
      });
      await hub().request('POST', `/v1/transactions/${toConfirm[0]}/review`, {
        key: a.apiKey,
        body: { state: 'in_review' },
      });

      // Every message to b fails (port 9): wait until each transfer's has been tried.
      const total = toConfirm.length + received.length;
      await eventually(async () => {
        const q = await hub().request('GET', '/v1/queue', { key: a.apiKey });
        return q.body.failingDeliveries === total ? q : undefined;
      }, 'every delivery to b to fail once');

      const qa = await hub().request('GET', '/v1/queue', { key: a.apiKey });
      assert.equal(qa.status, 200, qa.text);
      assert.deepEqual(qa.body, { toConfirm: 2, toReview: 1, failingDeliveries: total });
      assert.deepEqual((await listAll(hub(), a.apiKey, 'needs=confirm')).sort(), [...toConfirm].sort());
      assert.deepEqual(await listAll(hub(), a.apiKey, 'needs=review'), [toConfirm[0]]);
      assert.equal((await listAll(hub(), a.apiKey, 'delivery=failing')).length, qa.body.failingDeliveries);

      const qb = await hub().request('GET', '/v1/queue', { key: b.apiKey });
      assert.equal(qb.status, 200, qb.text);
      const bReview = await listAll(hub(), b.apiKey, 'needs=review');
      // Open with the data received: received[2]; escalated: received[1]; cleared received[0] is done;
      // transfers not yet confirmed are not b's to review.
      assert.deepEqual(bReview.sort(), [received[1]!, received[2]!].sort());
      assert.deepEqual(qb.body, { toConfirm: 0, toReview: bReview.length, failingDeliveries: 0 });
      assert.equal((await listAll(hub(), b.apiKey, 'delivery=failing')).length, qb.body.failingDeliveries);

      // The review filter, for each state, reads the caller's own review (no row: open).
      assert.deepEqual(await listAll(hub(), b.apiKey, 'review=cleared'), [received[0]]);
      assert.deepEqual(await listAll(hub(), b.apiKey, 'review=escalated'), [received[1]]);
      assert.equal((await listAll(hub(), b.apiKey, 'review=open')).length, total - 2);
      assert.deepEqual(await listAll(hub(), a.apiKey, 'review=in_review'), [toConfirm[0]]);

      // Viewers see the counts too.
      assert.equal((await as(hub(), viewerSession, 'GET', '/v1/queue')).status, 200);
    });

    it('gives the operator the count of pending applications, and organizations none of it', async () => {
      const email = `compliance-${randomBytes(4).toString('hex')}@newcomer.example`;
      const body = notifyRequest(randomUUID());
      body.notificationEmail = email;
      const sent = await hub().request('POST', '/v1/transactions/initiate', { key: originator.apiKey, body });
      assert.equal(sent.status, 200, sent.text);
      await smtp.waitFor((s) => s.messages.some((m) => m.to.includes(email)));
      const text = decodeBody(smtp.messages.find((m) => m.to.includes(email))!.raw);
      const token = /\/claim\/([A-Za-z0-9_-]{43})/.exec(text)?.[1];
      assert.ok(token, text);
      const suffix = randomBytes(4).toString('hex');
      const applied = await hub().request('POST', `/v1/claims/${token}/application`, {
        body: {
          name: `Newcomer ${suffix}`,
          vaspDid: `did:web:newcomer-${suffix}.example`,
          contactEmail: email,
        },
      });
      assert.equal(applied.status, 201, applied.text);

      const res = await hub().admin('GET', '/v1/admin/queue');
      assert.equal(res.status, 200, res.text);
      const list = await hub().admin('GET', '/v1/admin/applications?status=pending');
      assert.ok(res.body.pendingApplications >= 1);
      assert.equal(res.body.pendingApplications, list.body.applications.length);
      assert.equal((await hub().request('GET', '/v1/admin/queue', { key: beneficiary.apiKey })).status, 403);
      assert.equal((await hub().admin('GET', '/v1/queue')).status, 403);
    });
  },
  { SMTP_URL: smtp.url, HUB_RETRY_SCHEDULE: '1h' },
);
