// TRP amounts in both encodings round-trip exactly, for an 8-decimal (BTC) and an 18-decimal
// (ETH) asset: what the hub sends a peer is what the hub reads back from it (docs/trp.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTrpAmount, toSmallestUnits, toWholeUnitsNumber } from '../../src/trp/amount.js';

const cases: { asset: string; decimals: number; amount: string; smallest: string; whole: number }[] = [
  { asset: 'BTC', decimals: 8, amount: '0.00021', smallest: '21000', whole: 0.00021 },
  { asset: 'BTC', decimals: 8, amount: '1500.25', smallest: '150025000000', whole: 1500.25 },
  { asset: 'BTC', decimals: 8, amount: '0.00000001', smallest: '1', whole: 1e-8 },
  { asset: 'ETH', decimals: 18, amount: '1.5', smallest: '1500000000000000000', whole: 1.5 },
  { asset: 'ETH', decimals: 18, amount: '0.000000000000000001', smallest: '1', whole: 1e-18 },
  { asset: 'ETH', decimals: 18, amount: '12345.678', smallest: '12345678000000000000000', whole: 12345.678 },
];

describe('TRP amounts round-trip in both encodings', () => {
  for (const c of cases) {
    it(`${c.asset} ${c.amount} as a smallest-unit digit string`, () => {
      const sent = toSmallestUnits(c.amount, c.decimals);
      assert.equal(sent, c.smallest);
      assert.deepEqual(parseTrpAmount(sent, c.decimals), { ok: true, value: c.amount });
    });
    it(`${c.asset} ${c.amount} as a whole-unit JSON number`, () => {
      const sent = toWholeUnitsNumber(c.amount);
      assert.equal(sent, c.whole);
      // Through JSON text, as it travels.
      const received = JSON.parse(JSON.stringify({ amount: sent })).amount;
      assert.deepEqual(parseTrpAmount(received, c.decimals), { ok: true, value: c.amount });
    });
  }

  it('reads a JSON integer as whole units, never as the smallest unit', () => {
    assert.deepEqual(parseTrpAmount(150025, 8), { ok: true, value: '150025' });
    assert.deepEqual(parseTrpAmount('150025', 8), { ok: true, value: '0.00150025' });
  });

  it('refuses to send as a number an 18-decimal amount a double cannot carry exactly', () => {
    assert.throws(() => toWholeUnitsNumber('1.000000000000000001'), /more digits than a JSON number carries/);
    assert.equal(toSmallestUnits('1.000000000000000001', 18), '1000000000000000001');
  });
});
