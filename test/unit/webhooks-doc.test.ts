import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import {
  bodyFieldOrder,
  EMAIL_EVENT_NAMES,
  EMAIL_EVENTS,
  WEBHOOK_EVENT_NAMES,
  WEBHOOK_EVENTS,
} from '../../src/deliveries/events.js';

const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

it('documents every webhook event with its recipient and body fields in docs/webhooks.md, and nothing else', () => {
  const rows = [
    ...doc.matchAll(/^\| `([a-z-]+)` \| (beneficiary|originator|both|caller) \| [^|]+ \| ([^|]+) \|$/gm),
  ].map((m) => [m[1], m[2], names(m[3]!)]);
  const catalogue = WEBHOOK_EVENT_NAMES.map((e) => [e, WEBHOOK_EVENTS[e].to, bodyFieldOrder(e)]);
  assert.deepEqual(rows, catalogue);
});

it('documents every e-mail in docs/webhooks.md, and nothing else', () => {
  const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| ([^|]+) \| [^|]+ \|$/gm)].map((m) => m[1]);
  assert.deepEqual(rows, EMAIL_EVENT_NAMES);
  for (const e of EMAIL_EVENT_NAMES) assert.ok(EMAIL_EVENTS[e].when.length > 0);
});

it('keeps personal data out of every queued payload: what an event adds is only in its body', () => {
  for (const e of WEBHOOK_EVENT_NAMES) {
    const { payload, body, adds } = WEBHOOK_EVENTS[e];
    for (const field of ['ivms101Data', 'encryptedPii', 'pii']) {
      assert.ok(!(field in payload.properties), `${e}: the queued payload has ${field}`);
    }
    for (const field of Object.keys(payload.properties)) {
      assert.ok(field in body.properties, `${e}: ${field} is queued but not in the body`);
    }
    if (adds.includes('ivms101Data')) assert.ok('ivms101Data' in body.properties, e);
  }
});
