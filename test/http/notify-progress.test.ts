/**
 * NOTIFY progress (SPEC §17) and the claim link that outlives a rejection (SPEC §12), through
 * HTTP and a real SMTP server: the originator watches the claim go sent → opened → applied →
 * rejected → applied → approved → attached; nobody else sees it; the applicant sees its own
 * application's state on the link; the e-mails name the operator's contact and write times for
 * people with the ISO value beside them.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, it } from 'node:test';
import { eachBackend, type OrgFixture } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { type Json, mainRequest, notifyRequest } from '../support/requests.js';
import { decodeBody, SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
after(() => smtp.close());

const CONTACT = 'desk@operator.example';
/** `27 Nov 2026, 11:01 UTC (2026-11-27T11:01:41.123Z)`: a time for people, then its ISO value. */
const HUMAN_TIME = /\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC \((\d{4}-\d{2}-\d{2}T[\d:.]+Z)\)/;

/** The decoded text of the e-mail to `to` whose raw form matches `about`, once it arrived. */
async function mail(to: string, about: RegExp): Promise<string> {
  const pick = (m: { to: string[]; raw: string }) => m.to.includes(to) && about.test(m.raw);
  await smtp.waitFor((s) => s.messages.some(pick));
  return decodeBody(smtp.messages.find(pick)!.raw);
}

eachBackend(
  'NOTIFY progress and claim links that outlive a rejection',
  (hub) => {
    const notify = async (originator: OrgFixture, email: string) => {
      const body = notifyRequest(randomUUID());
      body.notificationEmail = email;
      const res = await hub().request('POST', '/v1/transactions/initiate', { key: originator.apiKey, body });
      assert.equal(res.status, 200, res.text);
      const ref = res.body.transactionRef as string;
      const text = await mail(email, /\/claim\//);
      const token = /https:\/\/hub\.example\/claim\/([A-Za-z0-9_-]{43})/.exec(text)?.[1];
      assert.ok(token, text);
      return { ref, token, text };
    };
    const read = async (key: string, ref: string) => {
      const res = await hub().request('GET', `/v1/transactions/${ref}`, { key });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const apply = (token: string, contactEmail: string, name = 'Newcomer Exchange') =>
      hub().request('POST', `/v1/claims/${token}/application`, {
        body: { name, vaspDid: `did:web:n-${randomUUID().slice(0, 8)}.example`, contactEmail },
      });

    it('shows the originator sent, opened, applied, rejected, applied, approved and attached, in order', async () => {
      const originator = await hub().createOrg({ name: 'Sender AG' });
      const email = `desk-${randomUUID().slice(0, 8)}@newcomer.example`;
      const { ref, token, text: announcement } = await notify(originator, email);
      assert.match(announcement, /To reach the operator of this hub: desk@operator\.example/);

      const sent = await read(originator.apiKey, ref);
      assert.equal(sent.notificationEmail, email);
      assert.equal(sent.claim.state, 'sent');

      const first = await hub().request('GET', `/v1/claims/${token}`);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.application, null);
      assert.equal(first.body.canApply, true);
      const opened = (await read(originator.apiKey, ref)).claim;
      assert.equal(opened.state, 'opened');
      // A bot reloading the page writes nothing more: the time stays the first load's.
      for (let i = 0; i < 5; i++) await hub().request('GET', `/v1/claims/${token}`);
      const again = (await read(originator.apiKey, ref)).claim;
      assert.equal(again.at, opened.at);
      assert.equal(again.steps.filter((s: Json) => s.state === 'opened').length, 1);
      const audit = await hub().admin('GET', `/v1/admin/audit?action=claim.opened&transactionRef=${ref}`);
      assert.equal(audit.status, 200, audit.text);
      assert.equal(audit.body.events.filter((e: Json) => e.subjectId === ref).length, 1);

      const contact = `ops-${randomUUID().slice(0, 8)}@newcomer.example`;
      const firstTry = await apply(token, contact);
      assert.equal(firstTry.status, 201, firstTry.text);
      const received = await mail(contact, /received/);
      assert.match(received, HUMAN_TIME);
      assert.match(received, /desk@operator\.example/);
      assert.equal((await read(originator.apiKey, ref)).claim.state, 'applied');

      const twice = await apply(token, `x-${contact}`);
      assert.equal(twice.status, 409, 'no second application while one is pending');
      assert.equal(twice.body.code, 'INVALID_STATE');
      const member = await hub().createOrg();
      const attach = await hub().request('POST', `/v1/claims/${token}/attach`, { key: member.apiKey });
      assert.equal(attach.status, 409, 'no attach while an application is pending');

      const rejected = await hub().admin(
        'POST',
        `/v1/admin/applications/${firstTry.body.applicationId}/reject`,
        {
          reason: 'Send your licence number.',
        },
      );
      assert.equal(rejected.status, 200, rejected.text);
      const rejection = await mail(contact, /not approved/);
      assert.match(rejection, /Send your licence number\./);
      assert.match(rejection, /works again while the transfer is open/);
      assert.match(rejection, /operator of this hub: desk@operator\.example/);
      assert.equal(
        HUMAN_TIME.exec(rejection)?.[1],
        rejected.body.decidedAt,
        'the ISO value is the decision’s',
      );

      const seen = await hub().request('GET', `/v1/claims/${token}`);
      assert.deepEqual(seen.body.application, {
        status: 'rejected',
        appliedAt: rejected.body.createdAt,
        decidedAt: rejected.body.decidedAt,
        rejectReason: 'Send your licence number.',
      });
      assert.equal(seen.body.canApply, true);
      assert.ok(
        !seen.text.includes(contact) && !seen.text.includes('Newcomer'),
        'no applicant data on the link',
      );
      assert.equal((await read(originator.apiKey, ref)).claim.state, 'rejected');

      const secondTry = await apply(token, contact, 'Newcomer Exchange Ltd');
      assert.equal(secondTry.status, 201, secondTry.text);
      assert.equal((await hub().request('GET', `/v1/claims/${token}`)).body.application.status, 'pending');
      const approved = await hub().admin(
        'POST',
        `/v1/admin/applications/${secondTry.body.applicationId}/approve`,
      );
      assert.equal(approved.status, 200, approved.text);
      const credentials = await mail(email, /\/credentials\//);
      assert.match(credentials, /The link works once, until \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC \(/);
      assert.match(credentials, /desk@operator\.example/);

      const done = await read(originator.apiKey, ref);
      assert.deepEqual(
        done.claim.steps.map((s: Json) => s.state),
        ['sent', 'opened', 'applied', 'rejected', 'applied', 'approved', 'attached'],
      );
      assert.deepEqual([done.claim.state, done.claim.at], ['attached', done.claim.steps[6].at]);
      const times = done.claim.steps.map((s: Json) => Date.parse(s.at));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
        'oldest first',
      );

      const after = await hub().request('GET', `/v1/claims/${token}`);
      assert.equal(after.body.application.status, 'approved');
      assert.equal(after.body.canApply, false);
      assert.equal((await apply(token, `y-${contact}`)).status, 409, 'none after an approval');

      const list = await hub().request('GET', '/v1/transactions?role=originator&protocol=NOTIFY', {
        key: originator.apiKey,
      });
      const item = list.body.transactions.find((t: Json) => t.transactionRef === ref);
      assert.equal(item.notificationEmail, email);
      assert.equal(item.claim.state, 'attached');
    });

    it('never shows the address or the progress to the beneficiary, to others, or on other protocols', async () => {
      const originator = await hub().createOrg();
      const email = `desk-${randomUUID().slice(0, 8)}@member.example`;
      const { ref, token } = await notify(originator, email);
      const receiver = await Receiver.start();
      after(() => receiver.close());
      const member = await hub().createOrg({ travelEndpoint: `${receiver.url}/m` });
      const attached = await hub().request('POST', `/v1/claims/${token}/attach`, { key: member.apiKey });
      assert.equal(attached.status, 200, attached.text);
      assert.equal((await read(originator.apiKey, ref)).claim.state, 'attached');
      const theirs = await read(member.apiKey, ref);
      assert.equal(theirs.beneficiaryVASPid, member.id);
      assert.ok(!('claim' in theirs) && !('notificationEmail' in theirs), JSON.stringify(theirs));
      const list = await hub().request('GET', '/v1/transactions?role=beneficiary', { key: member.apiKey });
      const item = list.body.transactions.find((t: Json) => t.transactionRef === ref);
      assert.ok(item && !('claim' in item) && !('notificationEmail' in item));
      const stranger = await hub().createOrg();
      assert.equal(
        (await hub().request('GET', `/v1/transactions/${ref}`, { key: stranger.apiKey })).status,
        404,
      );
      assert.equal((await hub().request('GET', `/v1/claims/${token}`)).status, 404, 'an attached link ends');

      const main = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: mainRequest(member.vaspDid),
      });
      assert.equal(main.status, 200, main.text);
      const mainTx = await read(originator.apiKey, main.body.transactionRef);
      assert.ok(!('claim' in mainTx) && !('notificationEmail' in mainTx));
    });

    it('keeps the link of an open transfer usable after a rejection, and ends it when the transfer ends', async () => {
      const originator = await hub().createOrg();
      const email = `desk-${randomUUID().slice(0, 8)}@late.example`;
      const { ref, token } = await notify(originator, email);
      await eventually(
        async () => (await read(originator.apiKey, ref)).status === 'RECEIVER_NOTIFIED',
        'notified',
      );
      const applied = await apply(token, `c-${randomUUID().slice(0, 8)}@late.example`);
      await hub().admin('POST', `/v1/admin/applications/${applied.body.applicationId}/reject`, {
        reason: 'No.',
      });
      const cancelled = await hub().request('POST', '/v1/transactions/cancel', {
        key: originator.apiKey,
        body: { transactionRef: ref },
      });
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal((await hub().request('GET', `/v1/claims/${token}`)).status, 404);
      assert.equal((await apply(token, 'z@late.example')).status, 404);
    });
  },
  { SMTP_URL: smtp.url, HUB_PUBLIC_URL: 'https://hub.example', HUB_OPERATOR_CONTACT: CONTACT },
);
