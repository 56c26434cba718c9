/**
 * Trust (SPEC §12, §13 amended) through HTTP and a real SMTP server: contact changes that the
 * previous contact hears of, capped per day; the credentials link that goes where the claim link
 * went, and the review that says who chose that address; NOTIFY links of members that outsiders
 * cannot use up; names without invisible characters, operators unique as they read; tokens that no
 * spelling of a URL gets into the logs; and reads of personal data audited with the key.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, it } from 'node:test';
import { CONTACT_NOTICES_PER_DAY } from '../../src/directory/service.js';
import { eachBackend, type OrgFixture, type TestHub } from '../harness.js';
import { eventually } from '../support/receiver.js';
import { type Json, mainRequest, notifyRequest } from '../support/requests.js';
import { decodeBody, SmtpSink } from '../support/smtp.js';

const smtp = await SmtpSink.start();
after(() => smtp.close());

const unique = () => randomBytes(4).toString('hex');
const mailsTo = (address: string) => smtp.messages.filter((m) => m.to.includes(address));

const audit = (hub: TestHub, action: string, subjectId: string) =>
  hub.db.query<{ actor: string; details: Json }>(
    'SELECT actor, details FROM audit_events WHERE action = $1 AND subject_id = $2 ORDER BY id',
    [action, subjectId],
  );

/** The token of the `path` link in the e-mail to `to`. */
async function linkIn(to: string, path: 'claim' | 'credentials'): Promise<string> {
  const has = (raw: string) => decodeBody(raw).includes(`/${path}/`);
  await smtp.waitFor(() => mailsTo(to).some((m) => has(m.raw)));
  const text = decodeBody(mailsTo(to).find((m) => has(m.raw))!.raw);
  return new RegExp(`https://hub\\.example/${path}/([A-Za-z0-9_-]{43})`).exec(text)![1]!;
}

eachBackend(
  'trust',
  (hub) => {
    const patchMe = (org: OrgFixture, body: Json) =>
      hub().request('PATCH', '/v1/organizations/me', { key: org.apiKey, body });
    const notify = async (originator: OrgFixture, to: string, beneficiaryVaspId: string = randomUUID()) => {
      const body = notifyRequest(beneficiaryVaspId);
      body.notificationEmail = to;
      const res = await hub().request('POST', '/v1/transactions/initiate', { key: originator.apiKey, body });
      assert.equal(res.status, 200, res.text);
      return res.body.transactionRef as string;
    };

    it('tells the previous contact when a key moves the contact address, so a redirect that follows is not unseen', async () => {
      const owner = `security-${unique()}@vasp.example`;
      const thief = `drop-${unique()}@elsewhere.example`;
      const org = await hub().createOrg({ travelEndpoint: 'https://before.example', contactEmail: owner });
      assert.equal((await patchMe(org, { contactEmail: thief })).status, 200);
      const [moved] = await audit(hub(), 'organization.updated', org.id);
      assert.deepEqual(moved!.details.changes, [{ field: 'contactEmail', from: owner, to: thief }]);

      await smtp.waitFor(() => mailsTo(owner).length === 1 && mailsTo(thief).length === 1);
      const told = decodeBody(mailsTo(owner)[0]!.raw);
      assert.match(told, /Contact address, before:\s+\S*security-/);
      assert.ok(told.includes(thief), 'the previous contact learns the new address');

      assert.equal((await patchMe(org, { travelEndpoint: 'https://after.example' })).status, 200);
      await smtp.waitFor(() => mailsTo(thief).length === 2);
      assert.equal(mailsTo(owner).length, 1, 'the redirect after the move goes to the contact as it now is');
      const [, redirected] = await audit(hub(), 'organization.updated', org.id);
      assert.deepEqual(redirected!.details.changes, [
        { field: 'travelEndpoint', from: 'https://before.example', to: 'https://after.example' },
      ]);
    });

    it('sends at most 10 notices per organization a day; further changes still apply and are audited', async () => {
      const victim = `someone-${unique()}@victim.example`;
      const org = await hub().createOrg({ travelEndpoint: 'https://a.example', contactEmail: victim });
      const toggles = CONTACT_NOTICES_PER_DAY + 3;
      for (let i = 1; i <= toggles; i++) {
        const res = await patchMe(org, { travelEndpoint: `https://${i % 2 ? 'b' : 'a'}.example` });
        assert.equal(res.status, 200, res.text);
      }
      const me = await hub().request('GET', '/v1/organizations/me', { key: org.apiKey });
      assert.equal(me.body.travelEndpoint, 'https://b.example', 'every change applied');
      const rows = await audit(hub(), 'organization.updated', org.id);
      assert.equal(rows.length, toggles, 'every change audited');
      assert.deepEqual(
        rows.map((r) => r.details.noticesWithheld ?? 0),
        [...Array(toggles)].map((_, i) => (i < CONTACT_NOTICES_PER_DAY ? 0 : 1)),
      );
      const queued = (await hub().admin('GET', '/v1/admin/emails?limit=100')).body.emails.filter(
        (e: Json) => e.to === victim,
      );
      assert.equal(queued.length, CONTACT_NOTICES_PER_DAY);
      await smtp.waitFor(() => mailsTo(victim).length === CONTACT_NOTICES_PER_DAY);

      // A change of contact past the allowance still applies, unmailed, and is audited.
      const next = `next-${unique()}@victim.example`;
      assert.equal((await patchMe(org, { contactEmail: next })).status, 200);
      const last = (await audit(hub(), 'organization.updated', org.id)).at(-1)!;
      assert.deepEqual(last.details.changes, [{ field: 'contactEmail', from: victim, to: next }]);
      assert.equal(last.details.noticesWithheld, 2);
    });

    it('sends the credentials link where the claim link went, the contact a notice without it, and shows the operator who chose that address', async () => {
      const originator = await hub().createOrg({ name: `Sender ${unique()}` });
      const claimAddress = `desk-${unique()}@smallco.example`;
      await notify(originator, claimAddress);
      const token = await linkIn(claimAddress, 'claim');
      const contact = `me-${unique()}@squatter.example`;
      const applied = await hub().request('POST', `/v1/claims/${token}/application`, {
        body: {
          name: 'Big Bank Ltd',
          vaspDid: `did:web:big-bank-${unique()}.example`,
          contactEmail: contact,
        },
      });
      assert.equal(applied.status, 201, applied.text);

      const listed = (await hub().admin('GET', '/v1/admin/applications?status=pending')).body.applications;
      const application = listed.find((a: Json) => a.id === applied.body.applicationId);
      const sender = (await hub().admin('GET', `/v1/admin/organizations/${originator.id}`)).body;
      assert.deepEqual(application.claimAddress, {
        address: claimAddress,
        chosenBy: { organizationId: originator.id, name: sender.name, vaspDid: originator.vaspDid },
        domain: 'smallco.example',
        matchesDid: false,
        matchesContact: false,
        originatorDomain: false,
      });
      assert.doesNotMatch(JSON.stringify(application), /verified/i, 'the address is not called verified');

      const approved = await hub().admin('POST', `/v1/admin/applications/${application.id}/approve`);
      assert.equal(approved.status, 200, approved.text);
      assert.equal(approved.body.claimAddress.address, claimAddress);
      const credentials = await linkIn(claimAddress, 'credentials');
      // The contact has the acknowledgement of the application, then the notice.
      await smtp.waitFor(() => mailsTo(contact).length === 2);
      const notice = decodeBody(mailsTo(contact).find((m) => !/received/.test(m.raw))!.raw);
      assert.ok(!notice.includes('/credentials/'), 'the contact gets no link');
      assert.ok(notice.includes(claimAddress), 'the contact learns where the link went');
      const shown = await hub().request('POST', `/v1/credentials/${credentials}`);
      assert.equal(shown.status, 200, shown.text);

      // The originator's own domain is flagged.
      const own = `ops@${originator.vaspDid.slice('did:web:'.length)}`;
      await notify(originator, own);
      const ownToken = await linkIn(own, 'claim');
      const ownApplied = await hub().request('POST', `/v1/claims/${ownToken}/application`, {
        body: { name: 'Inside Job', vaspDid: `did:web:inside-${unique()}.example`, contactEmail: own },
      });
      assert.equal(ownApplied.status, 201);
      const review = (await hub().admin('GET', '/v1/admin/applications')).body.applications.find(
        (a: Json) => a.id === ownApplied.body.applicationId,
      ).claimAddress;
      assert.deepEqual([review.originatorDomain, review.matchesContact], [true, true]);
    });

    it('refuses an application through a NOTIFY that named a member (409), leaving the link to the member', async () => {
      const originator = await hub().createOrg();
      const member = await hub().createOrg();
      const to = `desk-${unique()}@member.example`;
      const ref = await notify(originator, to, member.id);
      const token = await linkIn(to, 'claim');
      const refused = await hub().request('POST', `/v1/claims/${token}/application`, {
        body: { name: 'Outsider', vaspDid: `did:web:outsider-${unique()}.example`, contactEmail: to },
      });
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.code, 'INVALID_STATE');
      assert.equal((await hub().request('GET', `/v1/claims/${token}`)).status, 200, 'not used up');
      await eventually(
        async () =>
          (await hub().request('GET', `/v1/transactions/${ref}`, { key: originator.apiKey })).body.status ===
          'RECEIVER_NOTIFIED',
        'notified',
      );
      const attached = await hub().request('POST', `/v1/claims/${token}/attach`, { key: member.apiKey });
      assert.equal(attached.status, 200, attached.text);
    });

    it('refuses names with invisible format characters', async () => {
      for (const name of ['Exchange\u200b', 'alice\u200d', '\ufeffBank', 'Soft\u00adHyphen', 'Mark\u2060']) {
        const org = await hub().admin('POST', '/v1/admin/organizations', {
          name,
          vaspDid: `did:web:cf-${unique()}.example`,
        });
        assert.equal(org.status, 400, JSON.stringify(name));
        assert.equal(org.body.errors[0].path, '/name');
        const operator = await hub().admin('POST', '/v1/admin/operators', { name });
        assert.equal(operator.status, 400, JSON.stringify(name));
      }
      const renamed = await patchMe(await hub().createOrg(), { name: 'Renamed\u200b' });
      assert.equal(renamed.status, 400);
      assert.equal(
        (await hub().admin('POST', '/v1/admin/operators', { name: 'bootstrap\u200b' })).status,
        400,
      );
    });

    it('keeps operator names unique after NFKC normalisation and case folding, and audits operators by id and name', async () => {
      const base = `Grüße ${unique()}`;
      const first = await hub().admin('POST', '/v1/admin/operators', { name: base });
      assert.equal(first.status, 201, first.text);
      for (const lookalike of [
        base.toUpperCase(), // GRÜSSE: ß folds to ss
        base.replace('ß', 'ss'),
        base.normalize('NFD'), // ü as u + combining diaeresis
        base.replace('G', '\uff27'), // full-width G
      ]) {
        const res = await hub().admin('POST', '/v1/admin/operators', { name: lookalike });
        assert.equal(res.status, 409, JSON.stringify(lookalike));
      }
      assert.equal(
        (await hub().admin('POST', '/v1/admin/operators', { name: '\uff22ootstrap' })).status,
        400,
      );

      const id = first.body.operator.id as string;
      const org = await hub().request('POST', '/v1/admin/organizations', {
        key: first.body.apiKey,
        body: { name: `By ${unique()}`, vaspDid: `did:web:by-${unique()}.example` },
      });
      assert.equal(org.status, 201, org.text);
      const [created] = await audit(hub(), 'organization.created', org.body.organization.id);
      assert.equal(created!.actor, `operator:${id}:${base}`);

      // Revoked, the name is free again; the audit tells the two apart by id.
      assert.equal((await hub().admin('DELETE', `/v1/admin/operators/${id}`)).status, 204);
      const second = await hub().admin('POST', '/v1/admin/operators', { name: base.toUpperCase() });
      assert.equal(second.status, 201, second.text);
      const [made] = await audit(hub(), 'operator.created', second.body.operator.id);
      assert.equal(made!.actor, 'operator:bootstrap');
      const [revoked] = await audit(hub(), 'operator.revoked', id);
      assert.equal(revoked!.details.name, base);
      assert.notEqual(second.body.operator.id, id);
    });

    it('keeps link tokens out of the logs however the URL is percent-encoded', async () => {
      const originator = await hub().createOrg();
      const to = `desk-${unique()}@logs.example`;
      await notify(originator, to);
      const token = await linkIn(to, 'claim');
      const escaped = [...token].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
      for (const path of [`/v1/%63laims/${token}`, `/v1/claims/${escaped}`, `/v1/%63laims/${escaped}`]) {
        const res = await hub().request('GET', path);
        assert.equal(res.status, 200, `${path}: the router decodes the path (${res.status})`);
      }
      await hub().request('GET', `/v1/%63laims/${token}x`); // an unknown token: 404, logged too
      const logs = hub().allLogs();
      assert.match(logs, /\/v1\/claims\/\[token\]/, 'the requests were logged');
      assert.ok(!logs.includes(token.slice(4, 40)), 'no token in the logs');
      assert.ok(!logs.includes(escaped.slice(12, 120)), 'nor its escaped spelling');
    });

    it('audits a read of personal data with the key, its scope, the request id and the client address', async () => {
      const originator = await hub().createOrg();
      const beneficiary = await hub().createOrg({ travelEndpoint: 'https://beneficiary.invalid' });
      const init = await hub().request('POST', '/v1/transactions/initiate', {
        key: originator.apiKey,
        body: mainRequest(beneficiary.vaspDid),
      });
      assert.equal(init.status, 200, init.text);
      const ref = init.body.transactionRef as string;
      const reader = await hub().request('POST', '/v1/organizations/me/api-keys', {
        key: originator.apiKey,
        body: { scope: 'read' },
      });
      assert.equal(reader.status, 201, reader.text);
      const requestId = `pii-read-${unique()}`;
      const read = await hub().request('GET', `/v1/transactions/${ref}/pii`, {
        key: reader.body.apiKey,
        headers: { 'x-request-id': requestId },
      });
      assert.equal(read.status, 200, read.text);
      assert.equal(
        (await hub().request('GET', `/v1/transactions/${ref}/pii`, { key: originator.apiKey })).status,
        200,
      );

      const rows = await audit(hub(), 'transaction.pii_read', ref);
      assert.equal(rows.length, 2);
      assert.deepEqual(rows[0]!.details, {
        role: 'originator',
        ivms101Version: '2020',
        keyId: reader.body.keyId,
        scope: 'read',
        requestId,
        clientAddress: '127.0.0.1',
      });
      assert.equal(rows[1]!.details.scope, 'full');
      assert.match(rows[1]!.details.keyId, /^[0-9a-f-]{36}$/);
      assert.notEqual(rows[1]!.details.keyId, reader.body.keyId);
      assert.notEqual(rows[1]!.details.requestId, requestId, 'each read its own request');
    });
  },
  { SMTP_URL: smtp.url, HUB_PUBLIC_URL: 'https://hub.example' },
);
