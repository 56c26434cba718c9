import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { evaluate } from '../../src/rules/evaluate.js';
import { compareMoney, type FxRates, loadFxRates, NO_RATES } from '../../src/rules/fx.js';
import { loadRulesTable } from '../../src/rules/table.js';

const table = loadRulesTable();
const ORIG = '/pii/originator/originatorPersons/0/naturalPerson';
const BEN = '/pii/beneficiary/beneficiaryPersons/0/naturalPerson';

type Json = Record<string, any>;
const named = (primaryIdentifier: string) => ({ name: [{ nameIdentifier: [{ primaryIdentifier }] }] });

/** Names and account numbers only: what every rule asks for at the least. */
function minimalPii(): Json {
  return {
    originator: { originatorPersons: [{ naturalPerson: named('Muster') }], accountNumber: ['0xabc'] },
    beneficiary: { beneficiaryPersons: [{ naturalPerson: named('Doe') }], accountNumber: ['0xdef'] },
  };
}

function run(
  jurisdictions: [string | null, string | null],
  value: { amount: string; currency: string } | undefined,
  pii: Json = minimalPii(),
  fx: FxRates = NO_RATES,
) {
  return evaluate(table, fx, {
    originatorJurisdiction: jurisdictions[0],
    beneficiaryJurisdiction: jurisdictions[1],
    ...(value ? { transferValue: value } : {}),
    pii,
  });
}

describe('the shipped rules table', () => {
  it('covers the FATF baseline and every jurisdiction of SPEC §15, each with a source and a date', () => {
    for (const id of ['FATF', 'EU', 'GB', 'CH', 'US', 'SG', 'HK', 'JP', 'KR', 'CA', 'AE', 'AU', 'TR']) {
      const entry = table.entries.get(id);
      assert.ok(entry, id);
      assert.match(entry.source, /\S{3}/, id);
      assert.match(entry.date, /^\d{4}-\d{2}-\d{2}$/, id);
    }
  });

  it('maps EU and EEA states to the EU entry, listed ones to their own and the rest to FATF', () => {
    for (const country of ['DE', 'FR', 'GR', 'NO', 'LI', 'IS'])
      assert.equal(table.forCountry(country).id, 'EU');
    assert.equal(table.forCountry('GB').id, 'GB');
    assert.equal(table.forCountry('US').id, 'US');
    for (const country of ['BR', 'IN', 'ZA']) assert.equal(table.forCountry(country).id, 'FATF');
  });
});

// Each jurisdiction's rule applied alone (the originator's), to names and accounts only: above the
// threshold (or always, without one) and below it.
const ABOVE: [string, { amount: string; currency: string }, string[]][] = [
  ['BR', { amount: '1000.01', currency: 'USD' }, [ORIG]],
  ['DE', { amount: '0.01', currency: 'EUR' }, [ORIG]],
  ['GB', { amount: '1000.01', currency: 'EUR' }, [ORIG]],
  ['CH', { amount: '1', currency: 'CHF' }, [ORIG]],
  ['US', { amount: '3000', currency: 'USD' }, [`${ORIG}/geographicAddress`]],
  ['SG', { amount: '1500.01', currency: 'SGD' }, [ORIG]],
  ['HK', { amount: '8000', currency: 'HKD' }, [ORIG]],
  ['JP', { amount: '1', currency: 'JPY' }, [ORIG]],
  ['KR', { amount: '1000000', currency: 'KRW' }, []],
  ['CA', { amount: '1', currency: 'CAD' }, [`${ORIG}/geographicAddress`, `${BEN}/geographicAddress`]],
  ['AE', { amount: '3500', currency: 'AED' }, [`${ORIG}/geographicAddress`]],
  ['AU', { amount: '1', currency: 'AUD' }, [ORIG]],
  ['TR', { amount: '15000', currency: 'TRY' }, [`${ORIG}/nationalIdentification`]],
];
const BELOW: [string, { amount: string; currency: string }][] = [
  ['BR', { amount: '1000', currency: 'USD' }],
  ['GB', { amount: '1000', currency: 'EUR' }],
  ['US', { amount: '2999.99', currency: 'USD' }],
  ['SG', { amount: '1500', currency: 'SGD' }],
  ['HK', { amount: '7999.99', currency: 'HKD' }],
  ['KR', { amount: '999999', currency: 'KRW' }],
  ['AE', { amount: '3499.99', currency: 'AED' }],
  ['TR', { amount: '14999.99', currency: 'TRY' }],
];

describe('rules per jurisdiction', () => {
  for (const [country, value, missing] of ABOVE) {
    it(`${country} at ${value.amount} ${value.currency}: the travel rule applies`, () => {
      const result = run([country, null], value);
      assert.equal(result.regime, 'TRAVEL_RULE');
      assert.equal(result.rules.length, 1);
      assert.equal(result.rules[0]!.jurisdiction, country);
      assert.deepEqual(
        result.missing.map((m) => m.path),
        missing,
      );
      assert.equal(result.valid, missing.length === 0);
      for (const m of result.missing) assert.ok(m.message.includes(result.rules[0]!.source), m.message);
    });
  }
  for (const [country, value] of BELOW) {
    it(`${country} at ${value.amount} ${value.currency}: below the threshold, names and accounts suffice`, () => {
      const result = run([country, null], value);
      assert.equal(result.regime, 'BELOW_THRESHOLD');
      assert.deepEqual(result.missing, []);
      assert.equal(result.valid, true);
    });
  }

  it('below the threshold, the accounts some jurisdictions still require are missing; others ask nothing', () => {
    const pii = minimalPii();
    delete pii.originator.accountNumber;
    for (const [country, value] of BELOW) {
      const missing = run([country, null], value, pii).missing.map((m) => m.path);
      const expected = ['US', 'KR'].includes(country) ? [] : ['/pii/originator/accountNumber'];
      assert.deepEqual(missing, expected, country);
    }
  });

  it('EU: the address, the document number and the customer number together, or birth date and place', () => {
    const full = minimalPii();
    Object.assign(full.originator.originatorPersons[0].naturalPerson, {
      geographicAddress: [{ addressType: 'HOME', townName: 'Köln', country: 'DE' }],
      nationalIdentification: { nationalIdentifier: 'C01X00T47', nationalIdentificationType: 'IDCD' },
    });
    assert.deepEqual(
      run(['DE', null], undefined, full).missing.map((m) => m.path),
      [ORIG],
    );
    full.originator.originatorPersons[0].naturalPerson.customerIdentification = 'C-1';
    assert.equal(run(['DE', null], undefined, full).valid, true);
    const birth = minimalPii();
    birth.originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth = {
      dateOfBirth: '1980-01-01',
      placeOfBirth: 'Köln',
    };
    assert.equal(run(['DE', null], undefined, birth).valid, true);
  });

  it('a legal person meets an alternative only by what a legal person can have', () => {
    const pii = minimalPii();
    pii.originator.originatorPersons = [
      { legalPerson: { name: [{ nameIdentifier: [{ legalPersonName: 'Example GmbH' }] }] } },
    ];
    const result = run(['SG', null], { amount: '2000', currency: 'SGD' }, pii);
    assert.deepEqual(
      result.missing.map((m) => m.path),
      ['/pii/originator/originatorPersons/0/legalPerson'],
    );
    pii.originator.originatorPersons[0].legalPerson.nationalIdentification = {
      nationalIdentifier: '529900T8BM49AURSDO55',
      nationalIdentificationType: 'LEIX',
    };
    assert.equal(run(['SG', null], { amount: '2000', currency: 'SGD' }, pii).valid, true);
  });
});

describe('two jurisdictions, values and rates', () => {
  const fx: FxRates = {
    base: 'USD',
    date: '2026-11-27',
    rates: new Map([
      ['USD', '1'],
      ['EUR', '0.9'],
    ]),
  };

  it('holds the transfer to the stricter of the two parties’ rules, each item once', () => {
    const result = run(['US', 'TR'], { amount: '20000', currency: 'USD' }, minimalPii(), {
      ...fx,
      rates: new Map([...fx.rates, ['TRY', '40']]),
    });
    assert.deepEqual(
      result.rules.map((r) => [r.party, r.entry, r.regime]),
      [
        ['originator', 'US', 'TRAVEL_RULE'],
        ['beneficiary', 'TR', 'TRAVEL_RULE'],
      ],
    );
    assert.deepEqual(
      result.missing.map((m) => m.path),
      [`${ORIG}/geographicAddress`, `${ORIG}/nationalIdentification`],
    );
  });

  it('EUR 800 from Germany to the US: the EU rule applies, the US one is below its USD 3,000', () => {
    const result = run(['DE', 'US'], { amount: '800', currency: 'EUR' }, minimalPii(), fx);
    assert.deepEqual(
      result.rules.map((r) => [r.entry, r.regime]),
      [
        ['EU', 'TRAVEL_RULE'],
        ['US', 'BELOW_THRESHOLD'],
      ],
    );
    assert.equal(result.regime, 'TRAVEL_RULE');
    assert.deepEqual(
      result.missing.map((m) => m.path),
      [ORIG],
    );
    assert.match(result.missing[0]!.message, /Regulation \(EU\) 2023\/1113/);
  });

  it('both below: BELOW_THRESHOLD', () => {
    const result = run(['US', 'KR'], { amount: '100', currency: 'USD' }, minimalPii(), {
      ...fx,
      rates: new Map([...fx.rates, ['KRW', '1400']]),
    });
    assert.equal(result.regime, 'BELOW_THRESHOLD');
    assert.equal(result.valid, true);
  });

  it('a value without a rate to the threshold’s currency counts as above', () => {
    const result = run(['US', null], { amount: '1', currency: 'CHF' }, minimalPii(), fx);
    assert.equal(result.rules[0]!.regime, 'TRAVEL_RULE');
    assert.match(result.rules[0]!.reason, /no rate between CHF and USD/);
    assert.deepEqual(
      result.missing.map((m) => m.path),
      [`${ORIG}/geographicAddress`],
    );
  });

  it('no transferValue counts as above', () => {
    const result = run(['US', null], undefined);
    assert.equal(result.rules[0]!.regime, 'TRAVEL_RULE');
    assert.match(result.rules[0]!.reason, /no transferValue/);
  });

  it('converts through the base exactly: EUR 2,700 is USD 3,000 (reached), one cent less is below', () => {
    assert.equal(
      compareMoney(fx, { amount: '2700', currency: 'EUR' }, { amount: '3000', currency: 'USD' }),
      0,
    );
    assert.equal(
      run(['US', null], { amount: '2700', currency: 'EUR' }, minimalPii(), fx).regime,
      'TRAVEL_RULE',
    );
    assert.equal(
      run(['US', null], { amount: '2699.99', currency: 'EUR' }, minimalPii(), fx).regime,
      'BELOW_THRESHOLD',
    );
  });

  it('no jurisdiction on either side: no rules, valid whatever the data (v1)', () => {
    const result = run(
      [null, null],
      { amount: '1000000', currency: 'USD' },
      { originator: {}, beneficiary: {} },
    );
    assert.deepEqual(result, { valid: true, regime: 'TRAVEL_RULE', rules: [], missing: [] });
  });

  it('one side’s jurisdiction alone brings its rules', () => {
    const result = run([null, 'CA'], undefined);
    assert.deepEqual(
      result.rules.map((r) => [r.party, r.entry]),
      [['beneficiary', 'CA']],
    );
    assert.equal(result.missing.length, 2);
  });
});

describe('loading tables and rates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trh-rules-'));
  const file = (name: string, value: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };
  const entry = {
    name: 'Somewhere',
    source: 'Act 1, Art. 2',
    date: '2025-01-01',
    threshold: null,
    above: { originator: ['name'], beneficiary: [] },
    selfHostedWallet: null,
  };

  it('refuses broken tables naming the entry and the problem', () => {
    const cases: [unknown, RegExp][] = [
      [{ US: entry }, /needs a "FATF" entry/],
      [
        { FATF: { ...entry, above: { originator: ['shoeSize'], beneficiary: [] } } },
        /"FATF" has above\.originator/,
      ],
      [
        { FATF: { ...entry, threshold: { amount: '1000', currency: 'USD', inclusive: false } } },
        /needs "below"/,
      ],
      [{ FATF: entry, XX: entry }, /"XX" is not an ISO 3166-1/],
      [
        { FATF: entry, EU: { ...entry, countries: ['DE'] }, EEA: { ...entry, countries: ['DE'] } },
        /"DE" is listed by more/,
      ],
      [{ FATF: { ...entry, date: 'soon' } }, /"FATF" needs a date/],
      [{ FATF: { ...entry, threshold: { amount: '1e3', currency: 'USD', inclusive: true } } }, /threshold/],
    ];
    for (const [value, pattern] of cases) {
      assert.throws(() => loadRulesTable(file('t.json', value)), pattern);
    }
    assert.equal(loadRulesTable(file('ok.json', { FATF: entry, NZ: entry })).forCountry('NZ').id, 'NZ');
  });

  it('reads a rates file and refuses a bad one', () => {
    const fx = loadFxRates(file('fx.json', { base: 'EUR', date: '2026-11-27', rates: { USD: '1.08' } }));
    assert.equal(fx.rates.get('EUR'), '1');
    assert.equal(
      compareMoney(fx, { amount: '1080', currency: 'USD' }, { amount: '1000', currency: 'EUR' }),
      0,
    );
    assert.throws(
      () => loadFxRates(file('b1.json', { base: 'EUR', date: '2026-11-27', rates: { USD: 1.08 } })),
      /rate of USD/,
    );
    assert.throws(
      () => loadFxRates(file('b2.json', { base: 'EUR', date: '2026-11-27', rates: { USD: '0' } })),
      /greater than zero/,
    );
    assert.throws(
      () => loadFxRates(file('b3.json', { base: 'euro', date: '2026-11-27', rates: {} })),
      /base/,
    );
  });
});
