/** What the reference receiver prints: personal data as a count unless names are asked for. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEvent, type ReceivedEvent } from '../../src/participant/receiver.js';
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
