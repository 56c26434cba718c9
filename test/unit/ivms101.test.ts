import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Value } from 'typebox/value';
import { validatePii } from '../../src/ivms101/message.js';
import { PiiSchema } from '../../src/ivms101/schema.js';
import {
  assertOnly,
  assertProblem,
  BENEFICIARY,
  basicSample,
  type Json,
  LEGAL,
  legalPerson,
  mainSample,
  naturalPerson,
  notifySample,
  ORIGINATOR,
  withLegalOriginator,
  withValue,
} from './ivms101-fixtures.js';

describe('validatePii: samples', () => {
  it('accepts a MAIN-style sample', () => assert.deepEqual(validatePii(mainSample()), []));
  it('accepts a BASIC-style sample without a beneficiary address', () =>
    assert.deepEqual(validatePii(basicSample()), []));
  it('accepts a NOTIFY-style sample whose beneficiary address is null', () => {
    assert.deepEqual(validatePii(notifySample()), []);
  });

  it('accepts the example shipped in the OpenAPI schema', () => {
    const examples = (PiiSchema as { examples?: unknown[] }).examples;
    assert.ok(Array.isArray(examples) && examples.length === 1);
    assert.deepEqual(validatePii(examples[0]), []);
    assert.equal(Value.Check(PiiSchema, examples[0]), true);
  });

  it('accepts a legal-person originator identified by an LEI', () => {
    assert.deepEqual(validatePii(withLegalOriginator()), []);
  });

  it('does not modify the submitted object', () => {
    const pii = mainSample();
    const copy = structuredClone(pii);
    validatePii(pii);
    assert.deepEqual(pii, copy);
  });
});

describe('validatePii: shape', () => {
  it('rejects pii that is not an object', () => {
    for (const pii of [null, [], 'pii', 42, undefined])
      assertOnly(validatePii(pii), '/pii', /must be an object/);
  });

  it('requires both sides', () => {
    const problems = validatePii({});
    assertProblem(problems, '/pii/originator', /required/);
    assertProblem(problems, '/pii/beneficiary', /required/);
  });

  it('rejects empty persons arrays, which count as absent', () => {
    const pii = withValue('/pii/originator/originatorPersons', []);
    withValue('/pii/beneficiary/beneficiaryPersons', [], pii);
    const problems = validatePii(pii);
    assertProblem(problems, '/pii/originator/originatorPersons', /required/);
    assertProblem(problems, '/pii/beneficiary/beneficiaryPersons', /required/);
  });

  it('rejects a person with neither or both of naturalPerson and legalPerson', () => {
    // An empty object is absent (SPEC §18), so the list has no person left.
    assertOnly(
      validatePii(withValue('/pii/originator/originatorPersons/0', {})),
      '/pii/originator/originatorPersons',
      /required/,
    );
    const unknown = validatePii(withValue('/pii/originator/originatorPersons/0', { remark: 'x' }));
    assertProblem(unknown, '/pii/originator/originatorPersons/0/remark', /unknown field/);
    assertProblem(unknown, '/pii/originator/originatorPersons/0', /exactly one/);
    const both = withValue('/pii/originator/originatorPersons/0/legalPerson', legalPerson());
    assertOnly(validatePii(both), '/pii/originator/originatorPersons/0', /exactly one/);
  });

  it('requires a name with at least one name identifier', () => {
    assertOnly(validatePii(withValue(`${ORIGINATOR}/name`, undefined)), `${ORIGINATOR}/name`, /required/);
    assertOnly(validatePii(withValue(`${ORIGINATOR}/name`, [])), `${ORIGINATOR}/name`, /required/);
    assertOnly(
      validatePii(withValue(`${ORIGINATOR}/name/0/nameIdentifier`, [])),
      `${ORIGINATOR}/name`,
      /required/,
    );
    const pii = withValue(`${ORIGINATOR}/name/0/nameIdentifier`, []);
    withValue(`${ORIGINATOR}/name/0/localNameIdentifier`, [{ primaryIdentifier: 'ムスター' }], pii);
    assertOnly(validatePii(pii), `${ORIGINATOR}/name/0/nameIdentifier`, /required/);
  });

  it('rejects a missing or blank primaryIdentifier', () => {
    const path = `${ORIGINATOR}/name/0/nameIdentifier/0/primaryIdentifier`;
    assertOnly(validatePii(withValue(path, undefined)), path, /required/);
    assertOnly(validatePii(withValue(path, '')), path, /required/);
    assertOnly(validatePii(withValue(path, '  \t')), path, /empty/);
  });

  it('rejects an unknown field inside a natural person', () => {
    assertOnly(
      validatePii(withValue(`${ORIGINATOR}/nickname`, 'x')),
      `${ORIGINATOR}/nickname`,
      /^unknown field$/,
    );
  });

  it('rejects unknown fields at every level', () => {
    for (const path of [
      '/pii/extra',
      '/pii/originator/extra',
      '/pii/originator/originatorPersons/0/extra',
      `${ORIGINATOR}/name/0/extra`,
      `${ORIGINATOR}/name/0/nameIdentifier/0/extra`,
      `${ORIGINATOR}/geographicAddress/0/extra`,
      `${ORIGINATOR}/nationalIdentification/extra`,
    ]) {
      assertOnly(validatePii(withValue(path, 'x')), path, /unknown field/);
    }
  });

  it('treats keys named like Object.prototype members as unknown fields', () => {
    const pii = JSON.parse('{"__proto__": {"x": 1}, "constructor": 1, "toString": 2}');
    Object.assign(pii, mainSample());
    const problems = validatePii(pii);
    assert.deepEqual(problems.map((p) => p.path).sort(), [
      '/pii/__proto__',
      '/pii/constructor',
      '/pii/toString',
    ]);
    assert.ok(problems.every((p) => p.message === 'unknown field'));
  });

  it('escapes ~ and / in JSON pointers', () => {
    const pii = mainSample();
    const person = (pii.originator as { originatorPersons: { naturalPerson: Json }[] }).originatorPersons[0]!;
    person.naturalPerson['a~b/c'] = 1;
    assertOnly(validatePii(pii), `${ORIGINATOR}/a~0b~1c`, /unknown field/);
  });

  it('starts pointers at the given base path', () => {
    const problems = validatePii(withValue(`${ORIGINATOR}/extra`, 1), '/ivms101Data');
    assert.deepEqual(
      problems.map((p) => p.path),
      ['/ivms101Data/originator/originatorPersons/0/naturalPerson/extra'],
    );
  });

  it('rejects wrong types', () => {
    const cases: [string, unknown, RegExp][] = [
      ['/pii/originator', 'Erika', /object/],
      // One value where IVMS101 has a list is read as a list of one (SPEC §18).
      ['/pii/originator/originatorPersons', 'Erika', /object/],
      ['/pii/originator/accountNumber', 7, /string/],
      ['/pii/originator/accountNumber/0', 7, /string/],
      [`${ORIGINATOR}/name`, 'Erika Muster', /object/],
      [`${ORIGINATOR}/name/0/nameIdentifier/0/primaryIdentifier`, 12, /string/],
      [`${ORIGINATOR}/geographicAddress`, 5, /object/],
      [`${ORIGINATOR}/geographicAddress/0/addressLine`, 17, /string/],
      [`${ORIGINATOR}/nationalIdentification`, 'C01X00T47', /object/],
      [`${ORIGINATOR}/nationalIdentification/nationalIdentificationType`, null, /required/],
      [`${BENEFICIARY}/geographicAddress/0/country`, 250, /string/],
    ];
    for (const [path, value, message] of cases)
      assertOnly(validatePii(withValue(path, value)), path, message);
  });

  it('accepts an empty or absent accountNumber and an empty address list', () => {
    assert.deepEqual(validatePii(withValue('/pii/originator/accountNumber', [])), []);
    assert.deepEqual(validatePii(withValue(`${BENEFICIARY}/geographicAddress`, [])), []);
  });
});

describe('validatePii: alternative spellings', () => {
  it('accepts the IVMS101 standard spellings', () => {
    const pii = mainSample();
    const person = naturalPerson();
    const address = (person.geographicAddress as Json[])[0]!;
    address.postcode = address.postCode;
    delete address.postCode;
    const id = person.nationalIdentification as Json;
    id.nationalIdentifierType = id.nationalIdentificationType;
    delete id.nationalIdentificationType;
    person.name = (person.name as Json[])[0];
    (pii.originator as Json).originatorPersons = [{ naturalPerson: person }];
    assert.deepEqual(validatePii(pii), []);
  });

  it('accepts customerNumber and a single name object for legal persons', () => {
    const pii = withLegalOriginator((p) => {
      p.customerNumber = 'C-1';
      p.name = [p.name];
    });
    assert.deepEqual(validatePii(pii), []);
    assert.deepEqual(
      validatePii(withLegalOriginator((p) => Object.assign(p, { customerIdentification: 'C-1' }))),
      [],
    );
  });

  it('accepts both spellings of one field when they agree, and names both paths when not', () => {
    const address = `${ORIGINATOR}/geographicAddress/0`;
    assert.deepEqual(validatePii(withValue(`${address}/postcode`, '51147')), []);
    assertOnly(
      validatePii(withValue(`${address}/postcode`, '50667')),
      `${address}/postcode`,
      new RegExp(`conflicts with ${address}/postCode`),
    );
    const id = `${ORIGINATOR}/nationalIdentification`;
    assertOnly(
      validatePii(withValue(`${id}/nationalIdentifierType`, 'CCPT')),
      `${id}/nationalIdentifierType`,
      new RegExp(`conflicts with ${id}/nationalIdentificationType`),
    );
    const legal = withLegalOriginator((p) =>
      Object.assign(p, { customerIdentification: 'b', customerNumber: 'a' }),
    );
    assertOnly(validatePii(legal), `${LEGAL}/customerNumber`, /customerIdentification/);
  });

  it('checks a value given under the alternative spelling', () => {
    const pii = withValue(`${ORIGINATOR}/geographicAddress/0/postCode`, undefined);
    withValue(`${ORIGINATOR}/geographicAddress/0/postcode`, '1'.repeat(17), pii);
    assertOnly(validatePii(pii), `${ORIGINATOR}/geographicAddress/0/postcode`, /at most 16/);
  });

  it('accepts customerNumber on a natural person, the name IVMS101 C1 uses', () => {
    const pii = withValue(`${ORIGINATOR}/customerNumber`, 'C-1');
    withValue(`${ORIGINATOR}/geographicAddress`, undefined, pii);
    withValue(`${ORIGINATOR}/nationalIdentification`, undefined, pii);
    assert.deepEqual(validatePii(pii), []);
  });

  it('rejects natural-person name fields in a legal person, naming the right field', () => {
    const pii = withLegalOriginator((p) => {
      (p.name as Json).nameIdentifier = [{ primaryIdentifier: 'Example Exchange GmbH' }];
    });
    const problems = validatePii(pii);
    assertProblem(problems, `${LEGAL}/name/nameIdentifier/0/primaryIdentifier`, /legalPersonName/);
    assertProblem(problems, `${LEGAL}/name/nameIdentifier/0/legalPersonName`, /required/);
  });
});

describe('validatePii: reporting', () => {
  it('reports every problem, not just the first', () => {
    const pii = mainSample();
    withValue(`${ORIGINATOR}/name/0/nameIdentifier/0/primaryIdentifier`, '', pii);
    withValue(`${ORIGINATOR}/geographicAddress/0/addressType`, 'HOUSE', pii);
    withValue(`${ORIGINATOR}/geographicAddress/0/country`, 'Germany', pii);
    withValue(`${BENEFICIARY}/extra`, true, pii);
    withValue('/pii/beneficiary/accountNumber', 7, pii);
    assert.deepEqual(
      validatePii(pii)
        .map((p) => p.path)
        .sort(),
      [
        '/pii/beneficiary/accountNumber',
        `${BENEFICIARY}/extra`,
        `${ORIGINATOR}/geographicAddress/0/addressType`,
        `${ORIGINATOR}/geographicAddress/0/country`,
        `${ORIGINATOR}/name/0/nameIdentifier/0/primaryIdentifier`,
      ],
    );
  });

  it('never repeats a submitted value in a message', () => {
    const secret = 'Zebulon';
    const long = secret.repeat(20);
    const pii = {
      originator: {
        originatorPersons: [
          {
            naturalPerson: {
              name: [{ nameIdentifier: [{ primaryIdentifier: long, nameIdentifierType: secret }] }],
              geographicAddress: [
                { addressType: secret, country: secret, addressLine: [long], postCode: long },
              ],
              nationalIdentification: {
                nationalIdentifier: secret,
                nationalIdentificationType: 'LEIX',
                countryOfIssue: secret,
                registrationAuthority: secret,
              },
              dateAndPlaceOfBirth: { dateOfBirth: secret, placeOfBirth: long },
              countryOfResidence: secret,
            },
          },
          { legalPerson: { name: { nameIdentifier: [{ legalPersonName: long }] }, customerNumber: long } },
        ],
        accountNumber: [long],
      },
      beneficiary: { beneficiaryPersons: [{ naturalPerson: { name: secret } }] },
    };
    const problems = validatePii(pii);
    assert.ok(problems.length >= 15, JSON.stringify(problems));
    for (const problem of problems) assert.ok(!problem.message.includes(secret), problem.message);
  });
});
