/** What the reference receiver prints: personal data as a count unless names are asked for. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEvent, type ReceivedEvent } from '../../src/participant/receiver.js';
import { CONTROL_CHARACTERS } from '../../src/text/controls.js';
import { basicRequest } from '../support/requests.js';

const body = basicRequest('did:web:b.example');
const event: ReceivedEvent = {
  event: 'received',
  webhookId: 'msg_1',
  payload: { transactionRef: 'ref-1', protocol: 'BASIC' },
  pii: body.pii,
  duplicate: false,
};
const name =
  body.pii.originator.originatorPersons[0].naturalPerson.name[0].nameIdentifier[0].primaryIdentifier;

it('prints how many persons the personal data names, not their names, by default', () => {
  const text = describeEvent(event);
  assert.match(text, /personal data: originator 1 person\(s\), beneficiary 1 person\(s\)/);
  assert.ok(!text.includes(name), 'no name in the output');
});

it('prints the names when asked to (--show-pii)', () => {
  assert.ok(describeEvent(event, true).includes(name));
});

it('escapes control characters a counterparty put in a printed string, so none reaches the terminal', () => {
  const received: ReceivedEvent = {
    event: 'received',
    webhookId: 'msg_2',
    payload: {
      transactionRef: 'ref-2',
      protocol: 'MAIN',
      ivms101_data: { transactionBlockchainInfo: { destination: '0xabc\u001b[2J\u001b]0;pwned\u0007' } },
    },
    duplicate: false,
  };
  const declined: ReceivedEvent = {
    event: 'declined',
    webhookId: 'msg_3',
    payload: {
      transactionRef: 'ref-3',
      reason: { category: 'USER_REQUEST', description: 'ok\r\u001b[1A\n[00:00:00] declined FAKE LINE\u009b' },
    },
    duplicate: false,
  };
  for (const e of [received, declined]) {
    const text = describeEvent(e);
    assert.equal(text.match(CONTROL_CHARACTERS), null, JSON.stringify(text));
    assert.equal(text.split('\n').length, 1, 'one line per event without personal data');
  }
  assert.match(describeEvent(received), /to 0xabc\\u001b\[2J\\u001b\]0;pwned\\u0007 /);
  const withPii = describeEvent({ ...received, pii: body.pii }, true);
  assert.equal(withPii.split('\n').length, 2, 'the printer’s own second line stays');
});
