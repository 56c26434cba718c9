import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isPrintableName } from '../../src/text/formats.js';

it('takes printable names in any script and refuses control and bidirectional-override characters', () => {
  for (const good of ['Exchange A', 'Börse Zürich AG', '交易所', 'بورصة', 'A & B (EU) Ltd.']) {
    assert.ok(isPrintableName(good), good);
  }
  for (const bad of [
    '',
    ' Exchange',
    'Exchange ',
    'Exchange\nB',
    'Exchange\u0007',
    'Exchange\u0085',
    'Ex\u202Eegnahc',
    'Ex\u2066change\u2069',
    'Ex\u200Fchange',
    'Line\u2028break',
  ]) {
    assert.equal(isPrintableName(bad), false, JSON.stringify(bad));
  }
});
