/** The e-mails' texts: what a counterparty chose cannot add lines or markup to a message in the hub's name. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LinkTokens } from '../../src/claims/tokens.js';
import { composeEmail, composeNotifyEmail } from '../../src/deliveries/email-texts.js';
import { email } from '../../src/deliveries/events.js';

const links = new LinkTokens(Buffer.alloc(32, 7)).links('https://hub.example/');
const evil = {
  transactionRef: '5b1c0c8e-6a55-4f5e-9d59-2f1f3f0f4b11',
  transactionAsset: 'ETH-USDC',
  transactionAmount: '12.5',
  destination: '0xabc\n\nIMPORTANT: the hub has moved, join at https://evil.example/join\n',
  originatorName: 'Evil\r\nExchange <b>bold</b>',
  originatorVASPdid: 'did:web:evil.example',
  beneficiaryVASPid: null,
};

it('escapes line breaks and other control characters in the values it quotes', () => {
  const { subject, text } = composeNotifyEmail(evil, links);
  const lines = text.split('\n');
  assert.ok(!lines.some((l) => l.startsWith('IMPORTANT')), text);
  assert.ok(
    lines.some((l) =>
      /^ {2}Destination: +0xabc\\u000a\\u000aIMPORTANT: the hub has moved, join at https:\/\/evil\.example\/join\\u000a$/.test(
        l,
      ),
    ),
    text,
  );
  assert.ok(text.includes('Evil\\u000d\\u000aExchange <b>bold</b> (did:web:evil.example)'), text);
  assert.doesNotMatch(subject, /[\r\n]/);
  assert.match(text, /https:\/\/hub\.example\/docs/);
});

it('escapes markup in the HTML part and links the claim page', () => {
  const { html, text } = composeNotifyEmail(evil, links);
  assert.ok(!html.includes('<b>bold</b>'), html);
  assert.ok(html.includes('&lt;b&gt;bold&lt;/b&gt;'));
  const claim = links.claim(evil.transactionRef);
  assert.match(claim, /^https:\/\/hub\.example\/claim\/[A-Za-z0-9_-]{43}$/);
  assert.ok(text.includes(claim));
  assert.ok(html.includes(`href="${claim}"`));
});

it('derives the same claim link for a transaction every time, and another for each transaction', () => {
  const again = new LinkTokens(Buffer.alloc(32, 7)).links('https://hub.example');
  assert.equal(again.claim(evil.transactionRef), links.claim(evil.transactionRef));
  assert.notEqual(links.claim('6b1c0c8e-6a55-4f5e-9d59-2f1f3f0f4b11'), links.claim(evil.transactionRef));
  const otherKey = new LinkTokens(Buffer.alloc(32, 8)).links('https://hub.example');
  assert.notEqual(otherKey.claim(evil.transactionRef), links.claim(evil.transactionRef));
});

it('composes every e-mail of the catalogue with a subject, a text and an HTML part', () => {
  const messages = [
    email('notify', 'a@b.example', evil.transactionRef, evil),
    email('notify-cancelled', 'a@b.example', evil.transactionRef, evil),
    email('application-approved', 'a@b.example', null, {
      organizationId: evil.transactionRef,
      organizationName: 'New VASP',
      pickupId: evil.transactionRef,
      expiresAt: '2026-11-27T10:00:00.000Z',
    }),
    email('application-rejected', 'a@b.example', null, {
      organizationName: 'New VASP',
      reason: 'Not licensed.',
    }),
    email('application-approved-contact', 'c@d.example', null, {
      organizationId: evil.transactionRef,
      organizationName: 'New VASP',
      credentialsSentTo: 'desk@claim.example',
    }),
    email('endpoint-changed', 'a@b.example', null, {
      organizationId: evil.transactionRef,
      organizationName: 'VASP',
      vaspDid: 'did:web:v.example',
      changes: [{ field: 'contactEmail', from: 'a@b.example', to: 'x@y.example' }],
      changedBy: 'the organization, with one of its API keys',
      at: '2026-11-26T10:00:00.000Z',
    }),
    email('endpoint-changed', 'a@b.example', null, {
      organizationId: evil.transactionRef,
      organizationName: 'VASP',
      vaspDid: 'did:web:v.example',
      changes: [{ field: 'travelEndpoint', from: 'https://a.example', to: 'https://b.example' }],
      changedBy: 'the hub operator',
      at: '2026-11-26T10:00:00.000Z',
    }),
  ];
  for (const m of messages) {
    const { subject, text, html } = composeEmail(m, links);
    assert.ok(subject.length > 0 && text.length > 0 && html.startsWith('<!doctype html>'), m.event);
  }
  assert.match(
    composeEmail(messages[2]!, links).text,
    /https:\/\/hub\.example\/credentials\/[A-Za-z0-9_-]{43}/,
  );
  const notice = composeEmail(messages[4]!, links).text;
  assert.ok(!notice.includes('/credentials/'), 'the contact’s notice has no link');
  assert.ok(notice.includes('desk@claim.example'), 'it says where the link went');
  const moved = composeEmail(messages[5]!, links).text;
  assert.match(moved, /Contact address, before: +a@b\.example/);
  assert.match(moved, /notices about your organization now go to the contact address/);
  assert.doesNotMatch(moved, /Travel rule messages/, 'only what changed is spoken of');
});

it('names HUB_OPERATOR_CONTACT in every e-mail to an outsider, and writes times for people with the ISO value', () => {
  const staffed = new LinkTokens(Buffer.alloc(32, 7)).links('https://hub.example/', 'ops@hub.example');
  const org = { organizationId: evil.transactionRef, organizationName: 'New VASP' };
  const outsiders = [
    email('notify', 'a@b.example', evil.transactionRef, evil),
    email('notify-cancelled', 'a@b.example', evil.transactionRef, evil),
    email('application-received', 'a@b.example', null, {
      organizationName: 'New VASP',
      appliedAt: '2026-11-27T11:01:41.123Z',
    }),
    email('application-approved', 'a@b.example', null, {
      ...org,
      pickupId: evil.transactionRef,
      expiresAt: '2026-11-28T11:01:41.123Z',
    }),
    email('application-approved-contact', 'c@d.example', null, { ...org, credentialsSentTo: 'd@e.example' }),
    email('application-rejected', 'a@b.example', null, {
      organizationName: 'New VASP',
      reason: 'Send your licence.',
      decidedAt: '2026-11-27T12:30:00.000Z',
    }),
  ];
  for (const m of outsiders) {
    const { text, html } = composeEmail(m, staffed);
    assert.ok(text.includes('ops@hub.example'), `${m.event}: ${text}`);
    assert.ok(html.includes('ops@hub.example'), m.event);
    assert.ok(!composeEmail(m, links).text.includes('ops@hub.example'), m.event);
  }
  const text = (i: number) => composeEmail(outsiders[i]!, staffed).text;
  assert.ok(text(2).includes('27 Nov 2026, 11:01 UTC (2026-11-27T11:01:41.123Z)'), text(2));
  assert.ok(text(3).includes('until 28 Nov 2026, 11:01 UTC (2026-11-28T11:01:41.123Z)'), text(3));
  const rejected = text(5);
  assert.ok(rejected.includes('27 Nov 2026, 12:30 UTC (2026-11-27T12:30:00.000Z)'), rejected);
  assert.match(rejected, /works again while the transfer is open/);
  assert.match(rejected, /The operator's reason: Send your licence\./);
  // Without a contact, the rejection still names where to turn: the hub's address.
  assert.match(composeEmail(outsiders[5]!, links).text, /operator of this hub: https:\/\/hub\.example\n/);
});

it('writes the times of the members’ e-mails for people too, with the ISO value beside them', () => {
  const changed = composeEmail(
    email('endpoint-changed', 'a@b.example', null, {
      organizationId: evil.transactionRef,
      organizationName: 'VASP',
      vaspDid: 'did:web:v.example',
      changes: [{ field: 'travelEndpoint', from: 'https://a.example', to: 'https://b.example' }],
      changedBy: 'the hub operator',
      at: '2026-11-26T10:00:00.000Z',
    }),
    links,
  ).text;
  assert.ok(changed.includes('on 26 Nov 2026, 10:00 UTC (2026-11-26T10:00:00.000Z)'), changed);
  const invited = composeEmail(
    email('user-invitation', 'p@b.example', null, {
      invitationId: evil.transactionRef,
      organizationName: 'VASP',
      role: 'analyst',
      expiresAt: '2026-12-04T09:30:00.000Z',
    }),
    links,
  ).text;
  assert.ok(invited.includes('until 4 Dec 2026, 09:30 UTC (2026-12-04T09:30:00.000Z)'), invited);
  for (const text of [changed, invited])
    assert.doesNotMatch(text, /[^(]20\d\d-\d\d-\d\dT/, 'no bare ISO time');
});
