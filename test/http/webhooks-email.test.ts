import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, it } from 'node:test';
import { eachBackend, type TestHub } from '../harness.js';
import { eventually } from '../support/receiver.js';
import { type Json, notifyRequest, uniqueName } from '../support/requests.js';
import { decodeBody, header, SmtpSink } from '../support/smtp.js';

// The SMTP server must exist before the hubs start: its URL is part of their configuration.
const smtp = await SmtpSink.start();
after(() => smtp.close());

function personalStrings(pii: unknown): string[] {
  const all = (v: unknown): string[] =>
    typeof v === 'string'
      ? [v]
      : Array.isArray(v)
        ? v.flatMap(all)
        : v && typeof v === 'object'
          ? Object.values(v).flatMap(all)
          : [];
  return all(pii).filter((s) => !/^[A-Z]{2,4}$/.test(s) && !/^\d{1,3}$/.test(s));
}

eachBackend(
  'NOTIFY e-mail',
  (hub) => {
    const statusOf = async (h: TestHub, key: string, ref: string) =>
      (await h.request('GET', `/v1/transactions/${ref}`, { key })).body.status as string;
    const mailFor = (ref: string) => smtp.messages.filter((m) => m.raw.includes(ref));

    it('announces the transfer by e-mail without personal data; accepted mail notifies the receiver', async () => {
      const originator = await hub().createOrg({ name: 'Originator Exchange AG' });
      const outsider = randomUUID();
      const name = uniqueName();
      const body: Json = notifyRequest(outsider, name);
      body.notificationEmail = `compliance-${name.toLowerCase()}@outside.example`;
      const res = await hub().request('POST', '/v1/transactions/initiate', { key: originator.apiKey, body });
      assert.equal(res.status, 200, res.text);
      const ref = res.body.transactionRef;
      await smtp.waitFor(() => mailFor(ref).length === 1);
      const mail = mailFor(ref)[0]!;
      assert.deepEqual(mail.to, [body.notificationEmail]);
      const text = decodeBody(mail.raw);
      const subject = header(mail.raw, 'subject') ?? '';
      assert.match(subject, new RegExp(ref));
      for (const expected of [
        ref,
        'TRX-USDT',
        '99.99',
        body.transactionBlockchainInfo.destination,
        'Originator Exchange AG',
        originator.vaspDid,
        outsider,
        'https://hub.example/docs',
      ]) {
        assert.ok(text.includes(expected), `the e-mail names ${expected}:\n${text}`);
      }
      for (const s of personalStrings(body.pii)) {
        assert.ok(!mail.raw.includes(s), `personal data in the e-mail: ${s}`);
      }
      assert.match(header(mail.raw, 'message-id') ?? '', /^<msg_[0-9A-Z]{26}@travel-rule-hub>$/);
      await eventually(
        async () => (await statusOf(hub(), originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
        'RECEIVER_NOTIFIED',
      );
      const emails = await hub().admin('GET', `/v1/admin/emails?transactionRef=${ref}`);
      assert.equal(emails.status, 200, emails.text);
      assert.equal(emails.body.smtpConfigured, true);
      const e = emails.body.emails[0];
      assert.deepEqual(
        [e.to, e.status, e.attempts, e.lastError],
        [body.notificationEmail, 'DELIVERED', 1, null],
      );
      assert.equal(e.attemptLog[0].statusCode, 250);
      assert.ok(e.deliveredAt);
      assert.equal(e.event, 'notify');
    });

    it('retries an e-mail the SMTP server refuses for now', async () => {
      const originator = await hub().createOrg();
      smtp.rejectNext(2);
      const ref = (
        await hub().request('POST', '/v1/transactions/initiate', {
          key: originator.apiKey,
          body: notifyRequest(randomUUID()),
        })
      ).body.transactionRef;
      await smtp.waitFor(() => mailFor(ref).length === 1);
      const e = await eventually(async () => {
        const list = (await hub().admin('GET', `/v1/admin/emails?transactionRef=${ref}`)).body.emails;
        return list[0]?.status === 'DELIVERED' ? list[0] : undefined;
      }, 'DELIVERED');
      assert.equal(e.attempts, 3);
      assert.deepEqual(
        e.attemptLog.map((a: Json) => a.statusCode),
        [451, 451, 250],
      );
      assert.match(e.attemptLog[0].error, /try again later/);
      await eventually(
        async () => (await statusOf(hub(), originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
        'RECEIVER_NOTIFIED',
      );
      const pending = await hub().admin('GET', '/v1/admin/emails?status=PENDING');
      assert.ok(!pending.body.emails.some((m: Json) => m.transactionRef === ref));
    });

    it('lets the operator redeliver a FAILED e-mail, which then notifies the receiver', async () => {
      const originator = await hub().createOrg();
      smtp.rejectNext(4); // the first attempt and the schedule's three retries
      const ref = (
        await hub().request('POST', '/v1/transactions/initiate', {
          key: originator.apiKey,
          body: notifyRequest(randomUUID()),
        })
      ).body.transactionRef;
      const failed = await eventually(async () => {
        const list = (await hub().admin('GET', `/v1/admin/emails?transactionRef=${ref}`)).body.emails;
        return list[0]?.status === 'FAILED' ? list[0] : undefined;
      }, 'FAILED');
      assert.equal(failed.attempts, 4);
      assert.equal(await statusOf(hub(), originator.apiKey, ref), 'NEW');

      // Only the operator: an organization key is refused, and the webhook route does not know e-mails.
      const path = `/v1/admin/emails/${failed.id}/redeliver`;
      assert.equal((await hub().request('POST', path, { key: originator.apiKey })).status, 403);
      const asWebhook = `/v1/webhooks/deliveries/${failed.id}/redeliver`;
      assert.equal((await hub().request('POST', asWebhook, { key: originator.apiKey })).status, 404);
      assert.equal((await hub().admin('POST', `/v1/admin/emails/${randomUUID()}/redeliver`)).status, 404);

      const res = await hub().admin('POST', path);
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.id, failed.id);
      assert.equal(res.body.status, 'PENDING');
      assert.equal(res.body.attempts, 0);
      assert.equal(res.body.to, failed.to);
      await smtp.waitFor(() => mailFor(ref).length === 1);
      await eventually(
        async () => (await statusOf(hub(), originator.apiKey, ref)) === 'RECEIVER_NOTIFIED',
        'RECEIVER_NOTIFIED after the redelivery',
      );
      const again = await hub().admin('POST', path);
      assert.equal(again.status, 409, 'a DELIVERED e-mail is not redelivered');
      assert.equal(again.body.code, 'INVALID_STATE');
      const audit = await hub().db.query(
        "SELECT actor, details FROM audit_events WHERE action = 'delivery.redelivered' AND subject_id = $1",
        [ref],
      );
      assert.equal(audit.length, 1);
      assert.equal(audit[0]!.actor, 'operator:bootstrap');
      assert.equal((audit[0]!.details as Json).channel, 'email');
    });
  },
  { SMTP_URL: smtp.url, HUB_PUBLIC_URL: 'https://hub.example' },
);
