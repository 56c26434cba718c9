import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isPrintableName, nameKey } from '../../src/text/formats.js';

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
    // Invisible format characters (Unicode Cf).
    'bootstrap\u200B',
    'alice\u200D',
    '\uFEFFBank',
    'Soft\u00ADhyphen',
    'Word\u2060joiner',
    'Arabic\u061Cmark',
    'Tag\u{E0041}',
  ]) {
    assert.equal(isPrintableName(bad), false, JSON.stringify(bad));
  }
});

it('puts names in one form for comparison: NFKC, case folded', () => {
  const same: [string, string][] = [
    ['Alice', 'ALICE'],
    ['alice', '\uFF41\uFF4C\uFF49\uFF43\uFF45'], // full-width
    ['Grüße', 'GRÜSSE'],
    ['Grüße', 'Gru\u0308sse'], // combining diaeresis
    ['ﬁnance', 'Finance'], // ligature
    ['Ⅻ Capital', 'xii capital'], // roman numeral
  ];
  for (const [a, b] of same) assert.equal(nameKey(a), nameKey(b), `${a} ~ ${b}`);
  const different: [string, string][] = [
    ['alice', 'alicia'],
    ['Exchange A', 'Exchange B'],
    ['交易所', '交易'],
  ];
  for (const [a, b] of different) assert.notEqual(nameKey(a), nameKey(b), `${a} ≁ ${b}`);
});
