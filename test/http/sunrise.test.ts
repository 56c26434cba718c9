/**
 * The NOTIFY sunrise path (SPEC §12) end to end, through HTTP, a real SMTP server and real webhook
 * receivers: the claim link is read from the e-mail as received, the credentials link likewise.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, it } from 'node:test';
import { eachBackend, type OrgFixture } from '../harness.js';
import { eventually, Receiver, verified } from '../support/receiver.js';
import { type Json, notifyRequest } from '../support/requests.js';
import { decodeBody, SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
const receivers: Receiver[] = [];
after(async () => {
  await smtp.close();
  await Promise.all(receivers.map((r) => r.close()));
});

/** The link to `path` in the (decoded) text of the one e-mail to `to` whose subject matches. */
async function linkIn(to: string, path: 'claim' | 'credentials'): Promise<{ url: string; token: string }> {
  await smtp.waitFor((s) => s.messages.some((m) => m.to.includes(to) && m.raw.includes(`/${path}/`)));
  const mail = smtp.messages.filter((m) => m.to.includes(to)).find((m) => m.raw.includes(`/${path}/`))!;
  const text = decodeBody(mail.raw);
  const match = new RegExp(`(https://hub\\.example/${path}/([A-Za-z0-9_-]{43}))`).exec(text);
  assert.ok(match, `no ${path} link in:\n${text}`);
  const html = decodeBody(mail.raw, 'text/html');
  assert.ok(html.includes(`href="${match[1]}"`), 'the HTML part links it too');
  return { url: match[1]!, token: match[2]! };
}

eachBackend(
  'NOTIFY sunrise: claim and join',
  (hub) => {
    const originatorWithReceiver = async () => {
      const receiver = await Receiver.start();
      receivers.push(receiver);
      const originator = await hub().createOrg({ name: 'Sender AG', travelEndpoint: `${receiver.url}/orig` });
      return { receiver, originator };
    };
    const notify = async (originator: OrgFixture, email: string) => {
      const body = notifyRequest(randomUUID());
      body.notificationEmail = email;
      const res = await hub().request('POST', '/v1/transactions/initiate', { key: originator.apiKey, body });
      assert.equal(res.status, 200, res.text);
      return res.body.transactionRef as string;
    };
    const status = async (key: string, ref: string) =>
      (await hub().request('GET', `/v1/transactions/${ref}`, { key })).body.status as string;

    it('leads an outside exchange from the e-mail to membership, then through MAIN to a decline', async () => {
      const { receiver, originator } = await originatorWithReceiver();
      const email = `compliance-${randomUUID().slice(0, 8)}@newcomer.example`;
      const ref = await notify(originator, email);
      const claim = await linkIn(email, 'claim');

      const view = await hub().request('GET', `/v1/claims/${claim.token}`);
      assert.equal(view.status, 200, view.text);
      assert.equal(view.body.transactionRef, ref);
      assert.deepEqual(view.body.originator, { name: 'Sender AG', vaspDid: originator.vaspDid });
      assert.equal(view.headers.get('x-content-type-options'), 'nosniff');
      const page = await fetch(`${hub().url}/claim/${claim.token}`);
      assert.equal(page.status, 200, 'the claim page is the dashboard');
      assert.match(await page.text(), /<div id="app">|<!doctype html>/i);

      const newcomer = await Receiver.start();
      receivers.push(newcomer);
      const did = `did:web:newcomer-${randomUUID().slice(0, 8)}.example`;
      const applied = await hub().request('POST', `/v1/claims/${claim.token}/application`, {
        body: {
          name: 'Newcomer Exchange',
          vaspDid: did,
          travelEndpoint: `${newcomer.url}/hook`,
          contactEmail: `ops@${did.slice(8)}`,
        },
      });
      assert.equal(applied.status, 201, applied.text);
      const reopened = await hub().request('GET', `/v1/claims/${claim.token}`);
      assert.equal(reopened.status, 200, 'the link shows the application');
      assert.equal(reopened.body.application.status, 'pending');
      assert.equal(reopened.body.canApply, false);

      const waiting = await hub().admin('GET', '/v1/admin/applications?status=pending');
      const application = waiting.body.applications.find((a: Json) => a.id === applied.body.applicationId);
      assert.equal(application.notificationEmail, email);
      assert.ok(waiting.body.pending >= 1);
      const approved = await hub().admin('POST', `/v1/admin/applications/${application.id}/approve`);
      assert.equal(approved.status, 200, approved.text);
      assert.equal(approved.body.status, 'approved');
      assert.equal(approved.body.decidedBy, 'operator:bootstrap');
      assert.equal(
        (await hub().admin('POST', `/v1/admin/applications/${application.id}/approve`)).status,
        409,
      );

      // The credentials link goes where the claim link went (the inbox the applicant proved it reads).
      const credentials = await linkIn(email, 'credentials');
      const shown = await hub().request('POST', `/v1/credentials/${credentials.token}`);
      assert.equal(shown.status, 200, shown.text);
      assert.equal(
        (await hub().request('POST', `/v1/credentials/${credentials.token}`)).status,
        404,
        'shown once',
      );
      const member = {
        apiKey: shown.body.apiKey as string,
        webhookSecret: shown.body.webhookSecret as string,
      };
      const me = await hub().request('GET', '/v1/organizations/me', { key: member.apiKey });
      assert.equal(me.status, 200);
      assert.equal(me.body.organizationType, 'verified');
      assert.equal(me.body.id, approved.body.organizationId);

      await newcomer.waitFor((r) => r.to('/hook/v1/notify/received').length === 1);
      const received = verified(newcomer.to('/hook/v1/notify/received')[0]!, member.webhookSecret);
      assert.deepEqual(
        [received.transactionRef, received.protocol, received.beneficiaryVASPdid],
        [ref, 'NOTIFY', did],
      );
      assert.equal(received.ivms101_data.encryptedPii, undefined, 'MAIN rules: no personal data yet');
      await receiver.waitFor((r) => r.to('/orig/v1/notify/beneficiary-joined').length === 1);
      const joined = verified(
        receiver.to('/orig/v1/notify/beneficiary-joined')[0]!,
        originator.webhookSecret,
      );
      assert.deepEqual(joined, {
        transactionRef: ref,
        beneficiaryVASPid: me.body.id,
        beneficiaryVASPdid: did,
      });

      const tx = await hub().request('GET', `/v1/transactions/${ref}`, { key: member.apiKey });
      assert.equal(tx.body.beneficiaryVASPdid, did);
      assert.ok(tx.body.history.some((h: Json) => h.event === 'beneficiary-joined'));
      const confirmed = await hub().request('POST', '/v1/transactions/confirm', {
        key: originator.apiKey,
        body: { transactionRef: ref },
      });
      assert.equal(confirmed.status, 200, confirmed.text);
      assert.equal(confirmed.body.protocol, 'NOTIFY');
      await newcomer.waitFor((r) => r.to('/hook/v1/notify/confirmed-data').length === 1);
      const data = verified(newcomer.to('/hook/v1/notify/confirmed-data')[0]!, member.webhookSecret);
      assert.ok(data.ivms101Data.originator.originatorPersons.length > 0);
      const declined = await hub().request('POST', '/v1/transactions/decline', {
        key: member.apiKey,
        body: { transactionRef: ref, reason: { category: 'INSUFFICIENT_KYC', description: 'Need more.' } },
      });
      assert.equal(declined.status, 200, declined.text);
      await receiver.waitFor((r) => r.to('/orig/v1/notify/declined').length === 1);
    });

    it('lets a member attach a NOTIFY transaction with its own key, once', async () => {
      const { receiver, originator } = await originatorWithReceiver();
      const email = `ops-${randomUUID().slice(0, 8)}@member.example`;
      const ref = await notify(originator, email);
      const claim = await linkIn(email, 'claim');
      await eventually(
        async () => (await status(originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
        'notified',
      );
      const memberReceiver = await Receiver.start();
      receivers.push(memberReceiver);
      const member = await hub().createOrg({ travelEndpoint: `${memberReceiver.url}/m` });
      const noKey = await hub().request('POST', `/v1/claims/${claim.token}/attach`);
      assert.equal(noKey.status, 401);
      const own = await hub().request('POST', `/v1/claims/${claim.token}/attach`, { key: originator.apiKey });
      assert.equal(own.status, 404, 'the originator cannot claim its own transfer');
      const res = await hub().request('POST', `/v1/claims/${claim.token}/attach`, { key: member.apiKey });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        transactionRef: ref,
        status: 'RECEIVER_NOTIFIED',
        beneficiaryVASPid: member.id,
      });
      await memberReceiver.waitFor((r) => r.to('/m/v1/notify/received').length === 1);
      await receiver.waitFor((r) => r.to('/orig/v1/notify/beneficiary-joined').length === 1);
      const again = await hub().request('POST', `/v1/claims/${claim.token}/attach`, { key: member.apiKey });
      assert.equal(again.status, 404, 'a used link is 404');
      const other = await hub().createOrg();
      assert.equal(
        (await hub().request('POST', `/v1/claims/${claim.token}/attach`, { key: other.apiKey })).status,
        404,
      );
    });

    it('stops the claim link of a cancelled transaction and tells the address by a short e-mail', async () => {
      const { originator } = await originatorWithReceiver();
      const email = `ops-${randomUUID().slice(0, 8)}@cancelled.example`;
      const ref = await notify(originator, email);
      const claim = await linkIn(email, 'claim');
      await eventually(
        async () => (await status(originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
        'notified',
      );
      const cancelled = await hub().request('POST', '/v1/transactions/cancel', {
        key: originator.apiKey,
        body: { transactionRef: ref, reason: 'Customer withdrew the order.' },
      });
      assert.equal(cancelled.status, 200, cancelled.text);
      for (const request of [
        hub().request('GET', `/v1/claims/${claim.token}`),
        hub().request('POST', `/v1/claims/${claim.token}/application`, {
          body: { name: 'Late', vaspDid: 'did:web:late.example', contactEmail: 'a@late.example' },
        }),
      ]) {
        const res = await request;
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.code, 'NOT_FOUND');
      }
      await smtp.waitFor((s) => s.messages.some((m) => m.to.includes(email) && /cancelled/.test(m.raw)));
      const notice = smtp.messages.find((m) => m.to.includes(email) && /cancelled/.test(m.raw))!;
      assert.ok(!decodeBody(notice.raw).includes('Customer withdrew'), 'the reason goes to members only');
    });

    it('answers an unknown link like a used one, and rejects an application with its reason e-mailed', async () => {
      assert.equal((await hub().request('GET', `/v1/claims/${'A'.repeat(43)}`)).status, 404);
      assert.equal((await hub().request('GET', '/v1/claims/short')).status, 404);
      const { originator } = await originatorWithReceiver();
      const email = `ops-${randomUUID().slice(0, 8)}@rejected.example`;
      await notify(originator, email);
      const claim = await linkIn(email, 'claim');
      const contact = `contact-${randomUUID().slice(0, 8)}@rejected.example`;
      const applied = await hub().request('POST', `/v1/claims/${claim.token}/application`, {
        body: { name: 'Shady Ltd', vaspDid: `did:web:${randomUUID()}.example`, contactEmail: contact },
      });
      assert.equal(applied.status, 201, applied.text);
      const rejected = await hub().admin(
        'POST',
        `/v1/admin/applications/${applied.body.applicationId}/reject`,
        {
          reason: 'No VASP licence on record.',
        },
      );
      assert.equal(rejected.status, 200, rejected.text);
      assert.equal(rejected.body.status, 'rejected');
      const rejection = (m: { to: string[]; raw: string }) =>
        m.to.includes(contact) && /not approved/.test(m.raw);
      await smtp.waitFor((s) => s.messages.some(rejection));
      assert.match(decodeBody(smtp.messages.find(rejection)!.raw), /No VASP licence on record/);
    });

    it('refuses an application that is malformed or names a member, and keeps the link usable', async () => {
      const { originator } = await originatorWithReceiver();
      const email = `ops-${randomUUID().slice(0, 8)}@careful.example`;
      await notify(originator, email);
      const claim = await linkIn(email, 'claim');
      const bad = await hub().request('POST', `/v1/claims/${claim.token}/application`, {
        body: { name: 'Bad\u202Ename', vaspDid: 'not-a-did', contactEmail: 'nope' },
      });
      assert.equal(bad.status, 400);
      const existing = await hub().request('POST', `/v1/claims/${claim.token}/application`, {
        body: { name: 'Copycat', vaspDid: originator.vaspDid, contactEmail: 'a@b.example' },
      });
      assert.equal(existing.status, 409);
      assert.equal((await hub().request('GET', `/v1/claims/${claim.token}`)).status, 200, 'still usable');
    });
  },
  { SMTP_URL: smtp.url, HUB_PUBLIC_URL: 'https://hub.example' },
);
