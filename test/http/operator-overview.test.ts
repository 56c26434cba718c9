/**
 * The operator's transaction list and counts, transfers per day (member and operator), an
 * organization's delivery health, and the members' counterparty directory: metadata only, by role.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { eachBackend, type OrgFixture } from '../harness.js';
import { addPerson, as, type Session, signIn } from '../support/people.js';
import { eventually, Receiver } from '../support/receiver.js';
import { mainRequest, uniqueName } from '../support/requests.js';
import { SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
const receiver = await Receiver.start();
after(async () => {
  await smtp.close();
  await receiver.close();
});

const utcDay = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

eachBackend(
  'operator overview, daily stats and the counterparty directory',
  (hub) => {
    let a: OrgFixture;
    let b: OrgFixture;
    let c: OrgFixture;
    const refs: string[] = [];
    const names: string[] = [];
    let operatorViewer: Session;
    let memberViewer: Session;

    before(async () => {
      a = await hub().createOrg({ organizationType: 'verified' });
      b = await hub().createOrg({ travelEndpoint: receiver.url, contactEmail: 'ops@b.example' });
      c = await hub().createOrg();
      for (const [from, to] of [
        [a, b],
        [a, b],
        [a, b],
        [c, b],
      ] as const) {
        const name = uniqueName();
        names.push(name);
        const res = await hub().request('POST', '/v1/transactions/initiate', {
          key: from.apiKey,
          body: mainRequest(to.vaspDid, name),
        });
        assert.equal(res.status, 200, res.text);
        refs.push(res.body.transactionRef);
      }
      const cancel = await hub().request('POST', '/v1/transactions/cancel', {
        key: a.apiKey,
        body: { transactionRef: refs[0] },
      });
      assert.equal(cancel.status, 200, cancel.text);
      // Every message delivered (b answers 200), so that the counts below hold still.
      await eventually(async () => {
        const [row] = await hub().db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM deliveries WHERE status <> 'DELIVERED'`,
        );
        return row!.n === 0;
      }, 'every message delivered');
      // One created three days ago (UTC), to land on its own day in the chart.
      await hub().db.query(`UPDATE transactions SET created_at = now() - interval '3 days' WHERE ref = $1`, [
        refs[1],
      ]);
      const opViewer = await addPerson(hub(), smtp, { key: hub().adminKey }, 'viewer', { admin: true });
      operatorViewer = (await signIn(hub(), opViewer.email)).session!;
      const viewer = await addPerson(hub(), smtp, { key: a.apiKey }, 'viewer');
      memberViewer = (await signIn(hub(), viewer.email)).session!;
    });

    it('lists every transaction for the operator, filtered by status, organization and protocol, metadata only', async () => {
      const all = await hub().admin('GET', '/v1/admin/transactions');
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(
        all.body.transactions.map((t: { transactionRef: string }) => t.transactionRef).sort(),
        [...refs].sort(),
      );
      for (const name of names) assert.ok(!all.text.includes(name), 'no personal data in the list');
      assert.ok(!all.text.includes('destination') && !all.text.includes('notificationEmail'));

      const cancelled = await hub().admin('GET', '/v1/admin/transactions?status=CANCELLED');
      assert.deepEqual(
        cancelled.body.transactions.map((t: { transactionRef: string; status: string }) => [
          t.transactionRef,
          t.status,
        ]),
        [[refs[0], 'CANCELLED']],
      );
      const ofC = await hub().admin('GET', `/v1/admin/transactions?orgId=${c.id}`);
      assert.deepEqual(
        ofC.body.transactions.map((t: { transactionRef: string }) => t.transactionRef),
        [refs[3]],
      );
      assert.equal(ofC.body.transactions[0].originatorVASPid, c.id);
      assert.equal(ofC.body.transactions[0].beneficiaryVASPid, b.id);
      const basic = await hub().admin('GET', '/v1/admin/transactions?protocol=BASIC');
      assert.deepEqual(basic.body.transactions, []);
    });

    it('exports the operator list as CSV: every match, newest first, filtered, metadata only', async () => {
      const res = await hub().admin('GET', '/v1/admin/transactions?format=csv');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.match(
        res.headers.get('content-disposition') ?? '',
        /^attachment; filename="hub-transactions-\d{8}T\d{6}Z\.csv"$/,
      );
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const [header, ...lines] = res.text.split('\r\n').filter((l) => l !== '');
      assert.equal(
        header,
        'transactionRef,createdAt,updatedAt,status,protocol,transactionAsset,transactionAmount,' +
          'originatorVASPid,originatorVASPdid,beneficiaryVASPid,beneficiaryVASPdid',
      );
      const list = await hub().admin('GET', '/v1/admin/transactions');
      assert.deepEqual(
        lines.map((l) => l.split(',')[0]),
        list.body.transactions.map((t: { transactionRef: string }) => t.transactionRef),
        'the list’s rows, in its order',
      );
      const cancelledLine = lines.find((l) => l.startsWith(refs[0]!))!.split(',');
      assert.equal(cancelledLine[3], 'CANCELLED');
      assert.equal(cancelledLine[8], a.vaspDid);
      for (const name of names) assert.ok(!res.text.includes(name), 'no personal data in the export');

      const ofC = await hub().admin('GET', `/v1/admin/transactions?format=csv&orgId=${c.id}`);
      assert.deepEqual(
        ofC.text
          .split('\r\n')
          .slice(1)
          .filter((l) => l !== '')
          .map((l) => l.split(',')[0]),
        [refs[3]],
      );
      const paged = await hub().admin('GET', '/v1/admin/transactions?format=csv&limit=10');
      assert.equal(paged.status, 400);
      assert.match(paged.text, /does not apply to format=csv/);
      const asMember = await hub().request('GET', '/v1/admin/transactions?format=csv', { key: a.apiKey });
      assert.equal(asMember.status, 403, asMember.text);
    });

    it('pages the operator list by keyset cursor', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: {
          status: number;
          body: { transactions: { transactionRef: string }[]; nextCursor: string | null };
        } = await hub().admin('GET', `/v1/admin/transactions?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(res.status, 200);
        seen.push(...res.body.transactions.map((t) => t.transactionRef));
        cursor = res.body.nextCursor;
      } while (cursor);
      assert.equal(seen.length, 4);
      assert.equal(new Set(seen).size, 4);
      assert.equal((await hub().admin('GET', '/v1/admin/transactions?limit=201')).status, 400);
      assert.equal((await hub().admin('GET', '/v1/admin/transactions?cursor=nope')).status, 400);
    });

    it('counts an organization’s transactions by status and side', async () => {
      const res = await hub().admin('GET', `/v1/admin/transactions/counts?orgId=${b.id}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.asBeneficiary, 4);
      assert.equal(res.body.asOriginator, 0);
      assert.deepEqual(res.body.byStatus.CANCELLED, { asOriginator: 0, asBeneficiary: 1 });
      assert.deepEqual(res.body.byStatus.RECEIVER_NOTIFIED, { asOriginator: 0, asBeneficiary: 3 });
      const ofA = await hub().admin('GET', `/v1/admin/transactions/counts?orgId=${a.id}`);
      assert.equal(ofA.body.asOriginator, 3);
    });

    it('counts transfers per UTC day, zero-filled, for a member (its own) and for the operator (all)', async () => {
      const mine = await hub().request('GET', '/v1/transactions/stats/daily?days=7', { key: a.apiKey });
      assert.equal(mine.status, 200, mine.text);
      assert.equal(mine.body.days.length, 7);
      assert.equal(mine.body.to, utcDay());
      assert.equal(mine.body.from, utcDay(-6));
      const byDate = new Map(mine.body.days.map((d: { date: string }) => [d.date, d]));
      const today = byDate.get(utcDay()) as {
        total: number;
        byStatus: Record<string, number>;
        byProtocol: Record<string, number>;
      };
      assert.equal(today.total, 2);
      assert.equal(today.byStatus.CANCELLED, 1);
      assert.equal(today.byStatus.RECEIVER_NOTIFIED, 1);
      assert.equal(today.byProtocol.MAIN, 2);
      assert.equal(today.byProtocol.NOTIFY, 0);
      assert.equal((byDate.get(utcDay(-3)) as { total: number }).total, 1);
      const zeros = mine.body.days.filter((d: { total: number }) => d.total === 0);
      assert.equal(zeros.length, 5);
      assert.deepEqual(Object.keys(zeros[0].byStatus).sort(), [
        'CANCELLED',
        'CONFIRMED',
        'DECLINED',
        'EXPIRED',
        'NEW',
        'RECEIVER_NOTIFIED',
      ]);

      const defaults = await hub().request('GET', '/v1/transactions/stats/daily', { key: c.apiKey });
      assert.equal(defaults.body.days.length, 30);
      assert.equal(
        defaults.body.days.reduce((n: number, d: { total: number }) => n + d.total, 0),
        1,
      );

      const all = await hub().admin('GET', '/v1/admin/transactions/stats/daily?days=7');
      assert.equal(
        all.body.days.reduce((n: number, d: { total: number }) => n + d.total, 0),
        4,
      );
      const ofC = await hub().admin('GET', `/v1/admin/transactions/stats/daily?days=7&orgId=${c.id}`);
      assert.equal(
        ofC.body.days.reduce((n: number, d: { total: number }) => n + d.total, 0),
        1,
      );
      for (const bad of ['0', '367', 'x']) {
        const res = await hub().request('GET', `/v1/transactions/stats/daily?days=${bad}`, { key: a.apiKey });
        assert.equal(res.status, 400, bad);
      }
    });

    it('shows the operator an organization’s delivery health', async () => {
      const res = await hub().admin('GET', `/v1/admin/organizations/${b.id}/delivery-health`);
      assert.equal(res.status, 200, res.text);
      // Four `received` and one `cancelled`, all delivered.
      assert.deepEqual(res.body.messages, { delivered: 5, pending: 0, retrying: 0, failed: 0 });
      assert.deepEqual(
        { ...res.body.endpoint, lastAttemptAt: typeof res.body.endpoint.lastAttemptAt },
        {
          host: new URL(receiver.url).host,
          circuit: 'closed',
          failuresInARow: 0,
          failingSince: null,
          openSince: null,
          lastError: null,
          lastAttemptAt: 'string',
        },
      );
      assert.equal(res.body.endpointDownNoticeSentAt, null);
      assert.equal(
        (await hub().admin('GET', `/v1/admin/organizations/${randomUUID()}/delivery-health`)).status,
        404,
      );
    });

    it('lists a member’s counterparties with verified state, who verified it, and its messages to them', async () => {
      // An organization that joined through an approved application (the self-service way in).
      const joined = await hub().createOrg({ organizationType: 'verified' });
      await hub().db.query(
        `INSERT INTO join_applications (id, transaction_ref, status, name, vasp_did, contact_email, notification_email, organization_id)
         VALUES ($1, $2, 'approved', $3, $4, 'x@joined.example', 'x@joined.example', $5)`,
        [randomUUID(), refs[3], joined.name, joined.vaspDid, joined.id],
      );
      const verify = await hub().admin('PATCH', `/v1/admin/organizations/${c.id}`, {
        organizationType: 'verified',
      });
      // Set after the transfers: the EU's rules would have asked them for more data.
      const place = await hub().admin('PATCH', `/v1/admin/organizations/${b.id}`, {
        jurisdiction: 'DE',
        lei: '5493001KJTIIGC8Y1R12',
      });
      assert.equal(place.status, 200, place.text);
      assert.equal(verify.status, 200, verify.text);

      const res = await hub().request('GET', '/v1/counterparties', { key: a.apiKey });
      assert.equal(res.status, 200, res.text);
      const byId = new Map(res.body.counterparties.map((o: { id: string }) => [o.id, o]));
      assert.ok(!byId.has(a.id), 'not itself');
      const ofB = byId.get(b.id) as Record<string, unknown>;
      assert.deepEqual(
        { ...ofB, verifiedAt: null },
        {
          id: b.id,
          name: b.name,
          vaspDid: b.vaspDid,
          organizationType: 'unverified',
          verifiedVia: null,
          verifiedAt: null,
          jurisdiction: 'DE',
          lei: '5493001KJTIIGC8Y1R12',
          // a's messages to b: three `received` and a `cancelled`.
          delivery: { delivered: 4, pending: 0, retrying: 0, failed: 0 },
        },
      );
      const ofC = byId.get(c.id) as { verifiedVia: string; verifiedAt: string; delivery: unknown };
      assert.equal(ofC.verifiedVia, 'operator');
      assert.ok(ofC.verifiedAt);
      assert.deepEqual(ofC.delivery, { delivered: 0, pending: 0, retrying: 0, failed: 0 });
      assert.equal((byId.get(joined.id) as { verifiedVia: string }).verifiedVia, 'application');
      assert.ok(!res.text.includes('ops@b.example') && !res.text.includes(receiver.url));

      const asViewer = await as(hub(), memberViewer, 'GET', '/v1/counterparties');
      assert.equal(asViewer.status, 200);
      assert.equal((await hub().admin('GET', '/v1/counterparties')).status, 403);
    });

    it('lets operator viewers read the operator views and keeps members out', async () => {
      for (const path of [
        '/v1/admin/transactions?status=EXPIRED',
        '/v1/admin/transactions/stats/daily',
        `/v1/admin/transactions/counts?orgId=${a.id}`,
        `/v1/admin/organizations/${a.id}/delivery-health`,
      ]) {
        assert.equal((await as(hub(), operatorViewer, 'GET', path)).status, 200, path);
        const member = await hub().request('GET', path, { key: a.apiKey });
        assert.equal(member.status, 403, path);
        assert.equal((await as(hub(), memberViewer, 'GET', path)).status, 403, path);
        assert.equal((await hub().request('GET', path)).status, 401, path);
      }
      const memberDaily = await as(hub(), memberViewer, 'GET', '/v1/transactions/stats/daily');
      assert.equal(memberDaily.status, 200);
      assert.equal((await hub().admin('GET', '/v1/transactions/stats/daily')).status, 403);
    });
  },
  { SMTP_URL: smtp.url },
);
