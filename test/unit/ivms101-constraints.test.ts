import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLei } from '../../src/ivms101/codes.js';
import { validatePii } from '../../src/ivms101/message.js';
import {
  assertOnly,
  assertProblem,
  BENEFICIARY,
  type Json,
  LEGAL,
  LEI,
  LEI_BAD_CHECK,
  ORIGINATOR,
  withLegalOriginator,
  withValue,
} from './ivms101-fixtures.js';

describe('validatePii: code lists', () => {
  const cases: [string, string[], string][] = [
    [`${ORIGINATOR}/geographicAddress/0/addressType`, ['HOME', 'BIZZ', 'GEOG'], 'HOUSE'],
    [
      `${ORIGINATOR}/nationalIdentification/nationalIdentificationType`,
      ['ARNU', 'CCPT', 'RAID', 'DRLC', 'FIIN', 'TXID', 'SOCS', 'IDCD', 'MISC'],
      'PASS',
    ],
    [
      `${ORIGINATOR}/name/0/nameIdentifier/0/nameIdentifierType`,
      ['LEGL', 'ALIA', 'BIRT', 'MAID', 'MISC'],
      'NICK',
    ],
  ];
  for (const [path, good, bad] of cases) {
    const field = path.split('/').at(-1);
    it(`accepts every ${field} code`, () => {
      // LEGL must stay present somewhere for the LegalNamePresent rule, hence the extra name.
      for (const value of good) {
        const pii = withValue(path, value);
        withValue(`${ORIGINATOR}/name/1`, { nameIdentifier: [{ primaryIdentifier: 'Muster' }] }, pii);
        assert.deepEqual(validatePii(pii), [], `${field} ${value}`);
      }
    });
    it(`rejects an unlisted ${field}, listing the allowed codes`, () => {
      assertOnly(validatePii(withValue(path, bad)), path, new RegExp(`one of ${good[0]}`));
    });
    it(`reads a ${field} code in any letter case (SPEC §18)`, () => {
      assert.deepEqual(validatePii(withValue(path, good[0]!.toLowerCase())), []);
    });
  }

  it('rejects an unlisted legal person name type', () => {
    const pii = withLegalOriginator((p) => {
      (p.name as Json).nameIdentifier = [{ legalPersonName: 'X', legalPersonNameIdentifierType: 'ALIA' }];
    });
    assertProblem(
      validatePii(pii),
      `${LEGAL}/name/nameIdentifier/0/legalPersonNameIdentifierType`,
      /LEGL, SHRT, TRAD/,
    );
  });

  it('accepts ISO 3166-1 alpha-2 countries and XX in every country field', () => {
    for (const country of ['DE', 'CH', 'XK', 'XX']) {
      const pii = withValue(`${ORIGINATOR}/geographicAddress/0/country`, country);
      withValue(`${ORIGINATOR}/nationalIdentification/countryOfIssue`, country, pii);
      withValue(`${ORIGINATOR}/countryOfResidence`, country, pii);
      assert.deepEqual(validatePii(pii), [], country);
    }
  });

  it('rejects codes that are not ISO 3166-1 alpha-2, read in any letter case', () => {
    const paths = [
      `${ORIGINATOR}/geographicAddress/0/country`,
      `${ORIGINATOR}/nationalIdentification/countryOfIssue`,
      `${ORIGINATOR}/countryOfResidence`,
    ];
    for (const bad of ['ZZ', 'DEU', '276', 'D', 'Germany']) {
      for (const path of paths) assertOnly(validatePii(withValue(path, bad)), path, /ISO 3166-1 alpha-2/);
    }
    for (const path of paths) assert.deepEqual(validatePii(withValue(path, 'de')), []);
    const legal = withLegalOriginator((p) => {
      p.countryOfRegistration = 'UK';
    });
    assertOnly(validatePii(legal), `${LEGAL}/countryOfRegistration`, /ISO 3166-1 alpha-2/);
  });
});

describe('validatePii: length caps', () => {
  const caps: [string, number][] = [
    [`${ORIGINATOR}/name/0/nameIdentifier/0/primaryIdentifier`, 100],
    [`${ORIGINATOR}/name/0/nameIdentifier/0/secondaryIdentifier`, 100],
    [`${ORIGINATOR}/geographicAddress/0/streetName`, 70],
    [`${ORIGINATOR}/geographicAddress/0/townName`, 35],
    [`${ORIGINATOR}/geographicAddress/0/buildingNumber`, 16],
    [`${ORIGINATOR}/geographicAddress/0/postCode`, 16],
    [`${ORIGINATOR}/geographicAddress/0/buildingName`, 35],
    [`${ORIGINATOR}/geographicAddress/0/department`, 50],
    [`${ORIGINATOR}/geographicAddress/0/countrySubDivision`, 35],
    [`${ORIGINATOR}/geographicAddress/0/addressLine`, 70],
    [`${ORIGINATOR}/nationalIdentification/nationalIdentifier`, 35],
    [`${ORIGINATOR}/customerIdentification`, 50],
    ['/pii/originator/accountNumber/0', 100],
  ];
  for (const [path, max] of caps) {
    const field = path
      .split('/')
      .filter((t) => !/^\d+$/.test(t))
      .at(-1);
    const put = (value: string) => withValue(path, field === 'addressLine' ? [value] : value);
    const at = field === 'addressLine' ? `${path}/0` : path;
    it(`caps ${field} at ${max} characters`, () => {
      assert.deepEqual(validatePii(put('a'.repeat(max))), []);
      assertOnly(validatePii(put('a'.repeat(max + 1))), at, new RegExp(`at most ${max} characters`));
    });
  }

  it('caps placeOfBirth at 70 characters', () => {
    const path = `${ORIGINATOR}/dateAndPlaceOfBirth`;
    assert.deepEqual(
      validatePii(withValue(path, { dateOfBirth: '1980-01-01', placeOfBirth: 'b'.repeat(70) })),
      [],
    );
    const long = withValue(path, { dateOfBirth: '1980-01-01', placeOfBirth: 'b'.repeat(71) });
    assertOnly(validatePii(long), `${path}/placeOfBirth`, /at most 70/);
  });

  it('caps legalPersonName at 100 characters', () => {
    const pii = withLegalOriginator((p) => {
      (p.name as Json).nameIdentifier = [{ legalPersonName: 'c'.repeat(101) }];
    });
    assertOnly(validatePii(pii), `${LEGAL}/name/nameIdentifier/0/legalPersonName`, /at most 100/);
  });

  it('counts characters, not UTF-16 code units', () => {
    const path = `${ORIGINATOR}/name/0/nameIdentifier/0/primaryIdentifier`;
    assert.deepEqual(validatePii(withValue(path, '𠜎'.repeat(100))), []);
    assertOnly(validatePii(withValue(path, '𠜎'.repeat(101))), path, /at most 100/);
  });

  it('allows at most 7 address lines', () => {
    const path = `${ORIGINATOR}/geographicAddress/0/addressLine`;
    assert.deepEqual(validatePii(withValue(path, Array(7).fill('line'))), []);
    assertOnly(validatePii(withValue(path, Array(8).fill('line'))), path, /at most 7 items/);
  });
});

describe('validatePii: IVMS101 constraints', () => {
  it('C1: rejects an originator natural person known by name only', () => {
    const pii = withValue(ORIGINATOR, { name: [{ nameIdentifier: [{ primaryIdentifier: 'Muster' }] }] });
    assertOnly(validatePii(pii), ORIGINATOR, /originator needs one of/);
    withValue(`${ORIGINATOR}/geographicAddress`, null, pii);
    assertOnly(validatePii(pii), ORIGINATOR, /originator needs one of/);
  });

  it('C1: accepts each of address, customer identification, national identification, date of birth', () => {
    const extras: Json[] = [
      { geographicAddress: [{ addressType: 'GEOG', addressLine: ['Somewhere 1'], country: 'DE' }] },
      { customerIdentification: 'C-1' },
      { nationalIdentification: { nationalIdentifier: 'X', nationalIdentificationType: 'CCPT' } },
      { dateAndPlaceOfBirth: { dateOfBirth: '1980-02-29', placeOfBirth: 'Köln' } },
    ];
    for (const extra of extras) {
      const person = { name: [{ nameIdentifier: [{ primaryIdentifier: 'Muster' }] }], ...extra };
      assert.deepEqual(validatePii(withValue(ORIGINATOR, person)), [], JSON.stringify(extra));
    }
  });

  it('C1: does not apply to beneficiaries', () => {
    const pii = withValue(BENEFICIARY, { name: [{ nameIdentifier: [{ primaryIdentifier: 'Doe' }] }] });
    assert.deepEqual(validatePii(pii), []);
  });

  it('C2: rejects a date of birth today or in the future', () => {
    const path = `${ORIGINATOR}/dateAndPlaceOfBirth`;
    const today = new Date().toISOString().slice(0, 10);
    for (const date of [today, '2999-01-01']) {
      const pii = withValue(path, { dateOfBirth: date, placeOfBirth: 'Köln' });
      assertOnly(validatePii(pii), `${path}/dateOfBirth`, /in the past/);
    }
  });

  it('rejects a date of birth that is not a YYYY-MM-DD calendar date', () => {
    const path = `${ORIGINATOR}/dateAndPlaceOfBirth`;
    for (const date of [
      '1981-02-29',
      '1980-13-01',
      '1980-00-10',
      '1980-04-31',
      '1980-1-1',
      '01.02.1980',
      '1980-01-01T00:00',
    ]) {
      const pii = withValue(path, { dateOfBirth: date, placeOfBirth: 'Köln' });
      assertOnly(validatePii(pii), `${path}/dateOfBirth`, /date/);
    }
    assertOnly(
      validatePii(withValue(path, { dateOfBirth: '1980-01-01' })),
      `${path}/placeOfBirth`,
      /required/,
    );
  });

  it('C4: rejects an originator legal person known by name only', () => {
    const pii = withLegalOriginator((p) => {
      delete p.nationalIdentification;
    });
    assertOnly(validatePii(pii), LEGAL, /originator needs one of/);
    assert.deepEqual(
      validatePii(withLegalOriginator((p) => Object.assign(p, { customerNumber: 'C-9' }))),
      [],
    );
  });

  it('C4: takes an address only when its addressType is GEOG, as the standard says', () => {
    const withAddress = (addressType: string) =>
      withLegalOriginator((p) => {
        delete p.nationalIdentification;
        p.geographicAddress = [{ addressType, streetName: 'Main St', buildingNumber: '1', country: 'DE' }];
      });
    assertOnly(validatePii(withAddress('BIZZ')), LEGAL, /addressType GEOG/);
    assertOnly(validatePii(withAddress('HOME')), LEGAL, /addressType GEOG/);
    assert.deepEqual(validatePii(withAddress('GEOG')), []);
  });

  it('C5/C6: requires a legal name, reading an absent name type as LEGL', () => {
    const path = `${ORIGINATOR}/name/0/nameIdentifier/0/nameIdentifierType`;
    assertOnly(validatePii(withValue(path, 'ALIA')), `${ORIGINATOR}/name`, /legal name/);
    assert.deepEqual(validatePii(withValue(path, 'LEGL')), []);
    const legal = withLegalOriginator((p) => {
      (p.name as Json).nameIdentifier = [{ legalPersonName: 'Ex', legalPersonNameIdentifierType: 'TRAD' }];
    });
    assertOnly(validatePii(legal), `${LEGAL}/name`, /legal name/);
  });

  it('C7: rejects a legal person identified by a personal document type', () => {
    const pii = withLegalOriginator((p) => {
      p.nationalIdentification = { nationalIdentifier: 'X1', nationalIdentificationType: 'CCPT' };
    });
    assertOnly(
      validatePii(pii),
      `${LEGAL}/nationalIdentification/nationalIdentificationType`,
      /RAID, MISC, LEIX, TXID/,
    );
  });

  it('C8: requires address lines or a street with a building', () => {
    const address = `${ORIGINATOR}/geographicAddress/0`;
    assertOnly(validatePii(withValue(`${address}/buildingNumber`, undefined)), address, /addressLine/);
    const lineOnly = { addressType: 'HOME', addressLine: ['Heidestrasse 17', '51147 Köln'], country: 'DE' };
    assert.deepEqual(validatePii(withValue(address, lineOnly)), []);
    const named = { addressType: 'BIZZ', streetName: 'Main St', buildingName: 'Tower', country: 'DE' };
    assert.deepEqual(validatePii(withValue(address, named)), []);
    assertProblem(
      validatePii(withValue(address, { addressType: 'HOME', country: 'DE', addressLine: [] })),
      address,
    );
  });

  it('requires addressType and country in an address', () => {
    const address = `${ORIGINATOR}/geographicAddress/0`;
    assertOnly(validatePii(withValue(`${address}/country`, undefined)), `${address}/country`, /required/);
    assertOnly(
      validatePii(withValue(`${address}/addressType`, undefined)),
      `${address}/addressType`,
      /required/,
    );
  });

  it('C9: rejects a country of issue for a legal person', () => {
    const pii = withLegalOriginator((p) =>
      Object.assign(p.nationalIdentification as Json, { countryOfIssue: 'DE' }),
    );
    assertOnly(validatePii(pii), `${LEGAL}/nationalIdentification/countryOfIssue`, /absent/);
  });

  it('C9: requires a registration authority unless the identifier is an LEI', () => {
    const id = `${LEGAL}/nationalIdentification`;
    const noAuthority = withLegalOriginator((p) => {
      p.nationalIdentification = { nationalIdentifier: 'HRB 1', nationalIdentificationType: 'RAID' };
    });
    assertOnly(validatePii(noAuthority), `${id}/registrationAuthority`, /required/);
    const withAuthority = withLegalOriginator((p) => {
      p.nationalIdentification = {
        nationalIdentifier: 'HRB 1',
        nationalIdentifierType: 'RAID',
        registrationAuthority: 'RA000242',
      };
    });
    assert.deepEqual(validatePii(withAuthority), []);
    const leiWithAuthority = withLegalOriginator((p) => {
      Object.assign(p.nationalIdentification as Json, { registrationAuthority: 'RA000242' });
    });
    assertOnly(validatePii(leiWithAuthority), `${id}/registrationAuthority`, /absent/);
  });

  it('C10: rejects a registration authority not shaped like a GLEIF code', () => {
    const path = `${ORIGINATOR}/nationalIdentification/registrationAuthority`;
    for (const bad of ['RA12345', 'RA0002421', 'Handelsregister']) {
      assertOnly(validatePii(withValue(path, bad)), path, /RA followed by 6 digits/);
    }
    assert.deepEqual(validatePii(withValue(path, 'RA000242')), []);
    assert.deepEqual(validatePii(withValue(path, 'ra000242')), []);
  });

  it('C11: checks an LEI against ISO 17442', () => {
    assert.equal(isLei(LEI), true);
    assert.equal(isLei('HWUPKR0MPOU8FGXBT394'), true);
    for (const bad of [LEI_BAD_CHECK, LEI.toLowerCase(), LEI.slice(1), `${LEI}0`, '529900T8BM49AURSDOA5']) {
      assert.equal(isLei(bad), false, bad);
    }
    const id = `${LEGAL}/nationalIdentification/nationalIdentifier`;
    const pii = withLegalOriginator((p) =>
      Object.assign(p.nationalIdentification as Json, { nationalIdentifier: LEI_BAD_CHECK }),
    );
    assertOnly(validatePii(pii), id, /ISO 17442/);
    const natural = `${ORIGINATOR}/nationalIdentification`;
    const naturalLei = withValue(natural, {
      nationalIdentifier: LEI_BAD_CHECK,
      nationalIdentificationType: 'LEIX',
    });
    assertOnly(validatePii(naturalLei), `${natural}/nationalIdentifier`, /ISO 17442/);
  });
});
