/**
 * The endpoint-down notice: a real receiver that keeps failing, a real SMTP server. The contact is
 * e-mailed once its endpoint's circuit has been open for HUB_ENDPOINT_DOWN_AFTER (1 s here), not
 * again within a day, and not at all while the circuit stays closed.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { eachBackend } from '../harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { mainRequest, uniqueName } from '../support/requests.js';
import { decodeBody, header, SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
after(() => smtp.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

eachBackend(
  'endpoint-down notices',
  (hub) => {
    const noticesTo = (address: string) =>
      smtp.messages.filter((m) => m.to.includes(address) && /failing/.test(header(m.raw, 'subject') ?? ''));

    it('e-mails the contact once when the circuit has been open long enough, with no personal data', async () => {
      const down = await Receiver.start();
      down.otherwise(503);
      try {
        const originator = await hub().createOrg();
        const contact = `ops-${uniqueName().toLowerCase()}@down.example`;
        const beneficiary = await hub().createOrg({ travelEndpoint: down.url, contactEmail: contact });
        const names: string[] = [];
        // Two transfers: four attempts each on this schedule, so five failures in a row and more.
        for (let i = 0; i < 2; i++) {
          const name = uniqueName();
          names.push(name);
          const res = await hub().request('POST', '/v1/transactions/initiate', {
            key: originator.apiKey,
            body: mainRequest(beneficiary.vaspDid, name),
          });
          assert.equal(res.status, 200, res.text);
        }
        await smtp.waitFor(() => noticesTo(contact).length === 1, 20_000);
        const mail = noticesTo(contact)[0]!;
        const text = decodeBody(mail.raw);
        const host = new URL(down.url).host;
        assert.match(
          header(mail.raw, 'subject') ?? '',
          new RegExp(`webhooks to ${host.replace('.', '\\.')} are failing`),
        );
        for (const expected of [
          host,
          'Failing since',
          'UTC',
          'server error (HTTP 5xx)',
          'Messages given up (can be sent again):',
          '/ui/#/deliveries',
          beneficiary.vaspDid,
        ]) {
          assert.ok(text.includes(expected), `the notice says ${expected}:\n${text}`);
        }
        for (const name of names) assert.ok(!mail.raw.includes(name), 'no personal data in the notice');

        const health = await hub().admin('GET', `/v1/admin/organizations/${beneficiary.id}/delivery-health`);
        assert.equal(health.status, 200, health.text);
        assert.equal(health.body.endpoint.circuit, 'open');
        assert.equal(health.body.endpoint.lastError, 'http-5xx');
        assert.ok(health.body.endpoint.failuresInARow >= 5);
        assert.ok(health.body.endpointDownNoticeSentAt);
        assert.equal(health.body.messages.delivered, 0);

        // Checks go on every 250 ms: no second notice within the day.
        await sleep(1500);
        assert.equal(noticesTo(contact).length, 1);
        const audit = await hub().db.query(
          `SELECT actor FROM audit_events WHERE action = 'organization.endpoint_down_notified' AND subject_id = $1`,
          [beneficiary.id],
        );
        assert.deepEqual(audit, [{ actor: 'hub' }]);

        // A day later, still down: the next notice goes out.
        await hub().db.query(
          `UPDATE endpoint_down_notices SET sent_at = sent_at - interval '25 hours' WHERE organization_id = $1`,
          [beneficiary.id],
        );
        await smtp.waitFor(() => noticesTo(contact).length === 2, 20_000);
      } finally {
        await down.close();
      }
    });

    it('sends nothing while the circuit stays closed', async () => {
      const flaky = await Receiver.start();
      // Three failures, then it answers: never five in a row.
      flaky.script('/v1/notify/received', 500, 500, 500);
      try {
        const originator = await hub().createOrg();
        const contact = `ops-${uniqueName().toLowerCase()}@flaky.example`;
        const beneficiary = await hub().createOrg({ travelEndpoint: flaky.url, contactEmail: contact });
        const res = await hub().request('POST', '/v1/transactions/initiate', {
          key: originator.apiKey,
          body: mainRequest(beneficiary.vaspDid),
        });
        assert.equal(res.status, 200, res.text);
        await eventually(
          () => flaky.to('/v1/notify/received').some((r) => r.answered === 200),
          'the fourth attempt got through',
        );
        await sleep(1500);
        assert.equal(noticesTo(contact).length, 0);
        const health = await hub().admin('GET', `/v1/admin/organizations/${beneficiary.id}/delivery-health`);
        assert.equal(health.body.endpoint.circuit, 'closed');
        assert.equal(health.body.endpoint.failuresInARow, 0);
        assert.equal(health.body.endpointDownNoticeSentAt, null);
      } finally {
        await flaky.close();
      }
    });
  },
  { SMTP_URL: smtp.url, HUB_ENDPOINT_DOWN_AFTER: '1s', HUB_PUBLIC_URL: 'https://hub.example' },
);
