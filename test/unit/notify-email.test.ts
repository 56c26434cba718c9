/** The NOTIFY e-mail's text: what the originator chose cannot add lines to a message in the hub's name. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { composeNotifyEmail } from '../../src/deliveries/email-texts.js';

it('escapes line breaks and other control characters in the values it quotes', () => {
  const { subject, text } = composeNotifyEmail(
    {
      transactionRef: '5b1c0c8e-6a55-4f5e-9d59-2f1f3f0f4b11',
      transactionAsset: 'ETH-USDC',
      transactionAmount: '12.5',
      destination: '0xabc\n\nIMPORTANT: the hub has moved, join at https://evil.example/join\n',
      originatorName: 'Evil\r\nExchange',
      originatorVASPdid: 'did:web:evil.example',
      beneficiaryVASPid: null,
    },
    'https://hub.example',
  );
  const lines = text.split('\n');
  assert.ok(!lines.some((l) => l.startsWith('IMPORTANT')), text);
  assert.ok(
    lines.includes(
      '  Destination:      0xabc\\u000a\\u000aIMPORTANT: the hub has moved, join at https://evil.example/join\\u000a',
    ),
    text,
  );
  assert.ok(text.includes('Evil\\u000d\\u000aExchange (did:web:evil.example)'), text);
  assert.doesNotMatch(subject, /[\r\n]/);
  assert.match(text, /https:\/\/hub\.example/);
});
