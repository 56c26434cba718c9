// The IVMS101 normaliser and the version writers (SPEC §18): each dialect alone and combined,
// conflicts, the caller's paths in problems, and round trips between 2020 and 2023.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ELEMENT_ALIASES } from '../../src/ivms101/dialects.js';
import { type Ivms101Message, readIvms101, render, withVasps } from '../../src/ivms101/message.js';
import { normalise } from '../../src/ivms101/normalise.js';
import {
  assertOnly,
  assertProblem,
  type Json,
  LEGAL,
  LEI,
  legalPerson,
  mainSample,
  notifySample,
  ORIGINATOR,
} from './ivms101-fixtures.js';

const clone = <T>(v: T): T => structuredClone(v);

/** camelCase keys to snake_case, all the way down (TRISA's protobuf JSON). */
function snake(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snake);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(x)]),
  );
}

/** Every key with its first letter in capitals (CODE's entities, taken further). */
function pascal(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pascal);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k[0]!.toUpperCase() + k.slice(1), pascal(x)]));
}

function at(message: Json, path: string): Json {
  let node: unknown = message;
  for (const token of path.split('/').slice(2)) node = (node as Json)[token];
  return node as Json;
}

const canonicalOf = (pii: unknown) => readIvms101(pii).message;

/** [what the variant is, the sample as that dialect sends it, the version it is read as]. */
const VARIANTS: [string, () => unknown, '2020' | '2023'][] = [
  ['the interface document’s shape', () => mainSample(), '2020'],
  ['a { "ivms101": … } wrapper', () => ({ ivms101: mainSample() }), '2020'],
  ['a { "IVMS101": … } wrapper', () => ({ IVMS101: mainSample() }), '2020'],
  [
    'entity keys in PascalCase',
    () => ({ Originator: mainSample().originator, Beneficiary: mainSample().beneficiary }),
    '2020',
  ],
  ['every key in PascalCase', () => pascal(mainSample()), '2020'],
  ['every key in snake_case', () => snake(mainSample()), '2020'],
  [
    'plural element names',
    () => {
      const pii = mainSample();
      const person = at(pii, ORIGINATOR);
      person.geographicAddresses = person.geographicAddress;
      delete person.geographicAddress;
      const name = (person.name as Json[])[0]!;
      name.nameIdentifiers = name.nameIdentifier;
      delete name.nameIdentifier;
      const originator = pii.originator as Json;
      originator.accountNumbers = originator.accountNumber;
      delete originator.accountNumber;
      return snake(pii); // and geographic_addresses, account_numbers, name_identifiers
    },
    '2020',
  ],
  [
    'name as one object, lists as one object',
    () => {
      const pii = mainSample();
      const person = at(pii, ORIGINATOR);
      person.name = (person.name as Json[])[0];
      person.geographicAddress = (person.geographicAddress as Json[])[0];
      (pii.beneficiary as Json).beneficiaryPersons = (
        (pii.beneficiary as Json).beneficiaryPersons as Json[]
      )[0];
      (pii.beneficiary as Json).accountNumber = '0xdef';
      return pii;
    },
    '2020',
  ],
  [
    'the standard’s names (postcode, nationalIdentifierType)',
    () => {
      const pii = mainSample();
      const person = at(pii, ORIGINATOR);
      const address = (person.geographicAddress as Json[])[0]!;
      address.postcode = address.postCode;
      delete address.postCode;
      const id = person.nationalIdentification as Json;
      id.nationalIdentifierType = id.nationalIdentificationType;
      delete id.nationalIdentificationType;
      return pii;
    },
    '2020',
  ],
  [
    'codes in lower case and as protobuf enum names',
    () => {
      const pii = mainSample();
      const person = at(pii, ORIGINATOR);
      (person.geographicAddress as Json[])[0]!.addressType = 'ADDRESS_TYPE_CODE_HOME';
      (person.geographicAddress as Json[])[0]!.country = 'de';
      (person.nationalIdentification as Json).nationalIdentificationType = 'idcd';
      return pii;
    },
    '2020',
  ],
  [
    'empty strings, empty lists and empty objects as absent',
    () => {
      const pii = mainSample();
      const person = at(pii, ORIGINATOR);
      Object.assign(person, { customerIdentification: '', countryOfResidence: '', dateAndPlaceOfBirth: {} });
      Object.assign((person.geographicAddress as Json[])[0]!, { addressLine: [], room: '', department: '' });
      Object.assign(pii, {
        transferPath: { transferPath: [] },
        payloadMetadata: { transliterationMethod: [] },
      });
      return pii;
    },
    '2020',
  ],
  [
    'IVMS101.2023: originatorPerson, account numbers on the person, naturalPersonNameIdentifierType',
    () => ({
      originator: {
        originatorPerson: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [
                  {
                    primaryIdentifier: 'Muster',
                    secondaryIdentifier: 'Erika',
                    naturalPersonNameIdentifierType: 'LEGL',
                  },
                ],
              },
              geographicAddress: [
                {
                  addressType: 'HOME',
                  streetName: 'Heidestrasse',
                  townName: 'Köln',
                  country: 'DE',
                  buildingNumber: '17',
                  postcode: '51147',
                },
              ],
              nationalIdentification: {
                countryOfIssue: 'DE',
                nationalIdentifier: 'C01X00T47',
                nationalIdentifierType: 'IDCD',
              },
            },
            accountNumber: ['0xabc'],
          },
        ],
      },
      beneficiary: {
        beneficiaryPerson: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [
                  {
                    primaryIdentifier: 'Doe',
                    secondaryIdentifier: 'John',
                    naturalPersonNameIdentifierType: 'LEGL',
                  },
                ],
              },
              geographicAddress: [
                {
                  addressType: 'HOME',
                  streetName: 'Rue de Rivoli',
                  buildingNumber: '1',
                  townName: 'Paris',
                  country: 'FR',
                },
              ],
            },
            accountNumber: ['0xdef'],
          },
        ],
      },
      payloadMetadata: { payloadVersion: '101.2023' },
    }),
    '2023',
  ],
];

/** The sample's canonical form, with the name types a 2023 sender must give. */
function canonicalSample(withTypes: boolean): Ivms101Message {
  const pii = mainSample();
  if (withTypes) {
    for (const path of [ORIGINATOR, '/pii/beneficiary/beneficiaryPersons/0/naturalPerson']) {
      ((at(pii, path).name as Json[])[0]!.nameIdentifier as Json[])[0]!.nameIdentifierType = 'LEGL';
    }
  }
  return canonicalOf(pii);
}

describe('IVMS101 normaliser: each dialect alone', () => {
  for (const [what, make, version] of VARIANTS) {
    it(`reads ${what} as ${version}`, () => {
      const read = readIvms101(make());
      assert.deepEqual(read.problems, []);
      assert.equal(read.version, version);
      const expected = canonicalSample(version === '2023');
      if (version === '2023') {
        // The same data; IVMS101.2023 keeps account numbers on the persons.
        assert.deepEqual(render(read.message, '2020'), render(expected, '2020'));
      } else {
        assert.deepEqual(read.message, expected);
      }
    });
  }

  it('leaves the input untouched', () => {
    for (const [, make] of VARIANTS) {
      const input = make();
      const copy = clone(input);
      readIvms101(input);
      assert.deepEqual(input, copy);
    }
  });

  it('reads an already canonical message as itself (idempotent)', () => {
    for (const [, make] of VARIANTS) {
      const once = canonicalOf(make());
      assert.deepEqual(canonicalOf(once), once);
    }
  });
});

describe('IVMS101 normaliser: dialects combined', () => {
  it('reads snake_case, protobuf codes, a wrapper, bare VASPs and a bare transfer path in one message', () => {
    const pii = mainSample();
    (at(pii, ORIGINATOR).nationalIdentification as Json).nationalIdentificationType =
      'NATIONAL_IDENTIFIER_TYPE_CODE_IDCD';
    const vasp = { legalPerson: legalPerson() };
    const message = {
      IVMS101: {
        ...(snake(pii) as Json),
        originating_vasp: snake(vasp),
        BeneficiaryVASP: { beneficiaryVASP: vasp },
        transfer_path: [{ intermediary_vasp: vasp, sequence: '0' }],
        payloadMetadata: { transliterationMethod: 'HANI' },
      },
    };
    const read = readIvms101(message);
    assert.deepEqual(read.problems, []);
    const expectedVasp = canonicalOf({
      ...mainSample(),
      originatingVASP: { originatingVASP: vasp },
    }).originatingVASP;
    assert.deepEqual(read.message.originatingVASP, expectedVasp);
    assert.deepEqual(read.message.beneficiaryVASP, {
      beneficiaryVASP: (expectedVasp as Json).originatingVASP,
    });
    assert.deepEqual(read.message.transferPath, {
      transferPath: [{ intermediaryVASP: (expectedVasp as Json).originatingVASP, sequence: 0 }],
    });
    assert.deepEqual(read.message.payloadMetadata, { transliterationMethod: ['hani'] });
    assert.deepEqual(read.message.originator, canonicalSample(false).originator);
  });

  it('fills in the VASPs from the directory only where the sender left them out', () => {
    const given = { ...mainSample(), beneficiaryVASP: { legalPerson: legalPerson() } };
    const message = withVasps(canonicalOf(given), {
      originating: { name: 'Hub Member A', lei: LEI, jurisdiction: 'DE' },
      beneficiary: { name: 'Hub Member B' },
    });
    assert.deepEqual(message.originatingVASP, {
      originatingVASP: {
        legalPerson: {
          name: [
            { nameIdentifier: [{ legalPersonName: 'Hub Member A', legalPersonNameIdentifierType: 'LEGL' }] },
          ],
          nationalIdentification: { nationalIdentifier: LEI, nationalIdentificationType: 'LEIX' },
          countryOfRegistration: 'DE',
        },
      },
    });
    assert.deepEqual(message.beneficiaryVASP, canonicalOf(given).beneficiaryVASP);
    assert.deepEqual(readIvms101(message).problems, []);
  });
});

describe('IVMS101 normaliser: conflicts and unknown keys', () => {
  it('accepts two spellings that agree and names both paths when they differ', () => {
    const pii = mainSample();
    const address = `${ORIGINATOR}/geographicAddress/0`;
    Object.assign(at(pii, address), { post_code: '51147', postcode: '51147' });
    assert.deepEqual(readIvms101(pii).problems, []);
    at(pii, address).postcode = '99999';
    assertOnly(
      readIvms101(pii).problems,
      `${address}/postcode`,
      new RegExp(`conflicts with ${address}/postCode`),
    );
  });

  it('finds a conflict between the persons list and its 2023 name', () => {
    const pii = mainSample();
    const originator = pii.originator as Json;
    originator.originatorPerson = [{ legalPerson: legalPerson() }];
    assertOnly(
      readIvms101(pii).problems,
      '/pii/originator/originatorPerson',
      /conflicts with \/pii\/originator\/originatorPersons/,
    );
  });

  it('calls a key it cannot place an unknown field, at the caller’s path', () => {
    const pii = { Originator: { originator_persons: [{ natural_person: { nickname: 'x' } }] } };
    const problems = readIvms101(pii).problems;
    assertProblem(
      problems,
      '/pii/Originator/originator_persons/0/natural_person/nickname',
      /^unknown field$/,
    );
    assertProblem(problems, '/pii/beneficiary', /required/);
  });

  it('refuses account numbers on a VASP', () => {
    const pii = { ...mainSample(), originatingVASP: { legalPerson: legalPerson(), accountNumber: ['x'] } };
    assertOnly(
      readIvms101(pii).problems,
      '/pii/originatingVASP/accountNumber',
      /VASP carries no account numbers/,
    );
  });

  it('refuses keys beside a message wrapper', () => {
    assertOnly(readIvms101({ ivms101: mainSample(), extra: 1 }).problems, '/pii/extra', /unknown field/);
  });
});

describe('IVMS101 normaliser: problems point at what the caller sent', () => {
  const cases: [string, () => unknown, string, RegExp][] = [
    [
      'a snake_case name',
      () => {
        const pii = snake(mainSample()) as Json;
        delete at(pii, '/pii/originator/originator_persons/0/natural_person/name/0/name_identifier/0')
          .primary_identifier;
        return pii;
      },
      // an absent element is named by its canonical name, under the caller's path
      '/pii/originator/originator_persons/0/natural_person/name/0/name_identifier/0/primaryIdentifier',
      /required/,
    ],
    [
      'a name given as one object',
      () => {
        const pii = mainSample();
        at(pii, ORIGINATOR).name = { nameIdentifier: [{ primaryIdentifier: 'x'.repeat(101) }] };
        return pii;
      },
      `${ORIGINATOR}/name/nameIdentifier/0/primaryIdentifier`,
      /at most 100/,
    ],
    [
      'a wrapped message',
      () => {
        const pii = mainSample();
        at(pii, `${ORIGINATOR}/geographicAddress/0`).country = 'Germany';
        return { IVMS101: pii };
      },
      '/pii/IVMS101/originator/originatorPersons/0/naturalPerson/geographicAddress/0/country',
      /ISO 3166-1/,
    ],
    [
      'a bare VASP with a bad LEI check digit',
      () => {
        const vasp = legalPerson();
        (vasp.nationalIdentification as Json).nationalIdentifier = '529900T8BM49AURSDO56';
        return { ...mainSample(), originatingVASP: { legalPerson: vasp } };
      },
      '/pii/originatingVASP/legalPerson/nationalIdentification/nationalIdentifier',
      /ISO 17442/,
    ],
    [
      'a transfer path that skips a sequence (C12)',
      () => ({
        ...mainSample(),
        transferPath: [
          { intermediaryVASP: { legalPerson: legalPerson() }, sequence: 0 },
          { intermediaryVASP: { legalPerson: legalPerson() }, sequence: 2 },
        ],
      }),
      '/pii/transferPath',
      /start at 0 and rise by 1/,
    ],
    [
      'a transfer path that does not start at 0 (C12)',
      () => ({
        ...mainSample(),
        transferPath: { transferPath: [{ intermediaryVASP: { legalPerson: legalPerson() }, sequence: 1 }] },
      }),
      '/pii/transferPath/transferPath',
      /start at 0/,
    ],
    [
      'an unknown transliteration method',
      () => ({ ...mainSample(), payloadMetadata: { transliterationMethod: ['latn'] } }),
      '/pii/payloadMetadata/transliterationMethod/0',
      /one of arab/,
    ],
    [
      'an unknown payload version',
      () => ({ ...mainSample(), payloadMetadata: { payloadVersion: '102' } }),
      '/pii/payloadMetadata/payloadVersion',
      /one of 101, 101.2023/,
    ],
    [
      'a 2023 person whose LEI is wrong',
      () => ({
        originator: {
          originatorPerson: {
            legalPerson: {
              ...legalPerson(),
              nationalIdentification: { nationalIdentifier: 'X', nationalIdentifierType: 'LEIX' },
            },
          },
        },
        beneficiary: mainSample().beneficiary,
      }),
      `/pii/originator/originatorPerson/legalPerson/nationalIdentification/nationalIdentifier`,
      /ISO 17442/,
    ],
  ];
  for (const [what, make, path, message] of cases) {
    it(`for ${what}`, () => assertOnly(readIvms101(make()).problems, path, message));
  }
  it('keeps the legal person hint for natural-person name keys', () => {
    const pii = mainSample();
    (pii.originator as Json).originatorPersons = [
      { legalPerson: { ...legalPerson(), name: { nameIdentifier: [{ primaryIdentifier: 'X' }] } } },
    ];
    const problems = readIvms101(pii).problems;
    assertProblem(problems, `${LEGAL}/name/nameIdentifier/0/primaryIdentifier`, /legalPersonName/);
    assertProblem(problems, `${LEGAL}/name/nameIdentifier/0/legalPersonName`, /required/);
  });
});

describe('IVMS101 versions out', () => {
  it('writes the interface document’s shape unchanged for 2020 (v1)', () => {
    for (const sample of [mainSample(), notifySample()]) {
      const expected = clone(sample);
      const beneficiary = at(expected, '/pii/beneficiary/beneficiaryPersons/0/naturalPerson');
      if (beneficiary.geographicAddress === null) delete beneficiary.geographicAddress; // null is absent
      assert.deepEqual(render(canonicalOf(sample), '2020'), expected);
    }
  });

  it('writes IVMS101.2023 with the standard’s names', () => {
    // The sample as a 2023 sender writes it (the table's last variant) is exactly what comes out.
    const written2023 = VARIANTS.find(([, , version]) => version === '2023')![1]();
    assert.deepEqual(render(canonicalOf(mainSample()), '2023'), written2023);
  });

  it('writes one name object per person in 2023 and for TRP, keeping every name', () => {
    const pii = mainSample();
    const person = at(pii, ORIGINATOR);
    (person.name as Json[]).push({
      nameIdentifier: [{ primaryIdentifier: 'Mustermann', nameIdentifierType: 'BIRT' }],
      localNameIdentifier: [{ primaryIdentifier: 'ムスター', nameIdentifierType: 'LEGL' }],
    });
    const canonical = canonicalOf(pii);
    const v2023 = at(render(canonical, '2023'), '/pii/originator/originatorPerson/0/naturalPerson')
      .name as Json;
    assert.deepEqual(v2023, {
      nameIdentifier: [
        {
          primaryIdentifier: 'Muster',
          secondaryIdentifier: 'Erika',
          naturalPersonNameIdentifierType: 'LEGL',
        },
        { primaryIdentifier: 'Mustermann', naturalPersonNameIdentifierType: 'BIRT' },
      ],
      localNameIdentifier: [{ primaryIdentifier: 'ムスター', nameIdentifierType: 'LEGL' }],
    });
    const trp = render(canonical, 'trp');
    const trpPerson = at(trp, ORIGINATOR);
    assert.deepEqual(trpPerson.name, {
      nameIdentifier: [
        { primaryIdentifier: 'Muster', secondaryIdentifier: 'Erika' },
        { primaryIdentifier: 'Mustermann', nameIdentifierType: 'BIRT' },
      ],
      localNameIdentifier: [{ primaryIdentifier: 'ムスター', nameIdentifierType: 'LEGL' }],
    });
    assert.deepEqual(trpPerson.nationalIdentification, {
      countryOfIssue: 'DE',
      nationalIdentifier: 'C01X00T47',
      nationalIdentifierType: 'IDCD',
    });
    assert.deepEqual((trp.originator as Json).accountNumber, ['0xabc']);
  });

  it('moves account numbers between the side (2020) and the persons (2023)', () => {
    const pii = mainSample();
    (pii.originator as Json).originatorPersons = [
      { naturalPerson: at(pii, ORIGINATOR) },
      { legalPerson: legalPerson() },
    ];
    const v2023 = render(canonicalOf(pii), '2023');
    const persons = (v2023.originator as Json).originatorPerson as Json[];
    assert.deepEqual(persons[0]!.accountNumber, ['0xabc']);
    assert.equal(persons[1]!.accountNumber, undefined);
    (persons[1] as Json).accountNumber = ['0x123'];
    assert.deepEqual((render(canonicalOf(v2023), '2020').originator as Json).accountNumber, [
      '0xabc',
      '0x123',
    ]);
  });

  it('writes a legal person’s customer number under IVMS101 2020’s name and 2023’s', () => {
    const pii = mainSample();
    (pii.originator as Json).originatorPersons = [
      { legalPerson: { ...legalPerson(), customerIdentification: 'C-7' } },
    ];
    const canonical = canonicalOf(pii);
    assert.equal(at(render(canonical, '2020'), LEGAL).customerNumber, 'C-7');
    assert.equal(
      at(render(canonical, '2023'), '/pii/originator/originatorPerson/0/legalPerson').customerIdentification,
      'C-7',
    );
  });
});

// Generated messages with one person a side: every value IVMS101 2020 and 2023 can both hold.
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,14}[A-Za-z0-9]$/);
const country = fc.constantFrom('DE', 'US', 'GB', 'KR', 'CH', 'SG', 'XX');
const address = (types: string[]) =>
  fc.record(
    {
      addressType: fc.constantFrom(...types),
      streetName: word,
      buildingNumber: fc.stringMatching(/^[0-9]{1,4}$/),
      postCode: fc.stringMatching(/^[0-9A-Z]{3,8}$/),
      townName: word,
      addressLine: fc.array(word, { minLength: 1, maxLength: 3 }),
      country,
    },
    { requiredKeys: ['addressType', 'streetName', 'buildingNumber', 'country'] },
  );
const naturalId = fc.record({
  primaryIdentifier: word,
  secondaryIdentifier: word,
  nameIdentifierType: fc.constantFrom('LEGL', 'ALIA', 'BIRT', 'MAID', 'MISC'),
});
const natural = fc.record(
  {
    name: fc
      .record(
        {
          nameIdentifier: fc.array(naturalId, { minLength: 1, maxLength: 3 }),
          localNameIdentifier: fc.array(naturalId, { minLength: 1, maxLength: 2 }),
          phoneticNameIdentifier: fc.array(naturalId, { minLength: 1, maxLength: 2 }),
        },
        { requiredKeys: ['nameIdentifier'] },
      )
      .map((n) => {
        (n.nameIdentifier[0] as Json).nameIdentifierType = 'LEGL'; // C6
        return [n];
      }),
    geographicAddress: fc.array(address(['HOME', 'BIZZ', 'GEOG']), { minLength: 1, maxLength: 2 }),
    nationalIdentification: fc.record({
      nationalIdentifier: fc.stringMatching(/^[A-Z0-9]{5,12}$/),
      nationalIdentificationType: fc.constantFrom('CCPT', 'IDCD', 'DRLC', 'SOCS', 'TXID'),
      countryOfIssue: country,
    }),
    customerIdentification: word,
    dateAndPlaceOfBirth: fc.record({
      dateOfBirth: fc
        .date({ min: new Date('1900-01-01'), max: new Date('2005-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10)),
      placeOfBirth: word,
    }),
    countryOfResidence: country,
  },
  { requiredKeys: ['name', 'customerIdentification'] }, // customerIdentification: C1 for originators
);
const legal = fc.record(
  {
    name: fc
      .array(
        fc.record({
          legalPersonName: word,
          legalPersonNameIdentifierType: fc.constantFrom('LEGL', 'SHRT', 'TRAD'),
        }),
        {
          minLength: 1,
          maxLength: 3,
        },
      )
      .map((ids) => {
        ids[0]!.legalPersonNameIdentifierType = 'LEGL'; // C5
        return [{ nameIdentifier: ids }];
      }),
    geographicAddress: fc.array(address(['GEOG']), { minLength: 1, maxLength: 2 }),
    customerIdentification: word,
    nationalIdentification: fc.constant({ nationalIdentifier: LEI, nationalIdentificationType: 'LEIX' }),
    countryOfRegistration: country,
  },
  { requiredKeys: ['name', 'customerIdentification'] },
);
const person = fc.oneof(
  natural.map((naturalPerson) => ({ naturalPerson })),
  legal.map((legalPerson) => ({ legalPerson })),
);
const vasp = legal.map((legalPerson) => ({ legalPerson }));
const accounts = fc.array(fc.stringMatching(/^0x[0-9a-f]{8,40}$/), { minLength: 1, maxLength: 3 });
const side = (key: string) =>
  fc.record({ [key]: person.map((p) => [p]), accountNumber: accounts }, { requiredKeys: [key] });
const message = fc
  .record(
    {
      originator: side('originatorPersons'),
      beneficiary: side('beneficiaryPersons'),
      originatingVASP: vasp.map((v) => ({ originatingVASP: v })),
      beneficiaryVASP: vasp.map((v) => ({ beneficiaryVASP: v })),
      transferPath: fc.array(vasp, { minLength: 1, maxLength: 3 }).map((vs) => ({
        transferPath: vs.map((intermediaryVASP, sequence) => ({ intermediaryVASP, sequence })),
      })),
      payloadMetadata: fc
        .uniqueArray(fc.constantFrom('hani', 'kore', 'cyrl', 'arab'), { minLength: 1, maxLength: 2 })
        .map((transliterationMethod) => ({ transliterationMethod })),
    },
    { requiredKeys: ['originator', 'beneficiary'] },
  )
  .map((m): Ivms101Message => JSON.parse(JSON.stringify(m))); // plain objects, as JSON gives them

describe('IVMS101 versions: round trips (property-based)', () => {
  it('generated messages are valid canonical messages, read as themselves', () => {
    fc.assert(
      fc.property(message, (m) => {
        const read = readIvms101(m);
        assert.deepEqual(read.problems, []);
        assert.deepEqual(read.message, m);
        // A canonical message is taken as it is (no copy); the full walk, forced here by a
        // wrapper, builds the same message.
        assert.equal(normalise(m).message, m);
        assert.deepEqual(normalise({ ivms101: m }).message, m);
      }),
      { numRuns: 200 },
    );
  });

  it('2020 → canonical → 2023 → canonical → 2020 loses nothing', () => {
    fc.assert(
      fc.property(message, (m) => {
        const v2020 = render(m, '2020');
        const v2023 = render(canonicalOf(v2020), '2023');
        const back = readIvms101(v2023);
        assert.deepEqual(back.problems, []);
        assert.equal(back.version, '2023');
        assert.deepEqual(render(back.message, '2020'), v2020);
      }),
      { numRuns: 200 },
    );
  });

  it('2023 → canonical → 2020 → canonical → 2023 loses nothing', () => {
    fc.assert(
      fc.property(message, (m) => {
        const v2023 = render(m, '2023');
        const v2020 = render(canonicalOf(v2023), '2020');
        const back = readIvms101(v2020);
        assert.deepEqual(back.problems, []);
        assert.equal(back.version, '2020');
        assert.deepEqual(render(back.message, '2023'), v2023);
      }),
      { numRuns: 200 },
    );
  });

  it('every version written is read back as the same canonical message', () => {
    fc.assert(
      fc.property(
        message,
        fc.constantFrom('2020', '2023', 'trp') as fc.Arbitrary<'2020' | '2023' | 'trp'>,
        (m, style) => {
          const read = readIvms101(render(m, style));
          assert.deepEqual(read.problems, []);
          assert.deepEqual(render(read.message, '2020'), render(m, '2020'));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('docs/ivms101.md', () => {
  it('names every alias of the dialect table', () => {
    const doc = readFileSync(new URL('../../docs/ivms101.md', import.meta.url), 'utf8');
    for (const alias of ELEMENT_ALIASES) {
      for (const name of [alias.canonical, ...alias.also]) assert.ok(doc.includes(`\`${name}\``), name);
    }
  });
});
