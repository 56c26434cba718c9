// Shared samples and assertions for the IVMS101 validator tests. The samples follow the interface
// document's MAIN, BASIC and NOTIFY shapes; helpers change one value at a JSON pointer.
import assert from 'node:assert/strict';
import type { FieldProblem as Problem } from '../../src/text/json-pointer.js';

export type Json = Record<string, unknown>;

export const ORIGINATOR = '/pii/originator/originatorPersons/0/naturalPerson';
export const BENEFICIARY = '/pii/beneficiary/beneficiaryPersons/0/naturalPerson';
export const LEGAL = '/pii/originator/originatorPersons/0/legalPerson';

// A real LEI, and the same code with a wrong check digit.
export const LEI = '529900T8BM49AURSDO55';
export const LEI_BAD_CHECK = '529900T8BM49AURSDO56';

export function naturalPerson(): Json {
  return {
    name: [{ nameIdentifier: [{ primaryIdentifier: 'Muster', secondaryIdentifier: 'Erika' }] }],
    geographicAddress: [
      {
        addressType: 'HOME',
        streetName: 'Heidestrasse',
        townName: 'Köln',
        country: 'DE',
        buildingNumber: '17',
        postCode: '51147',
      },
    ],
    nationalIdentification: {
      countryOfIssue: 'DE',
      nationalIdentifier: 'C01X00T47',
      nationalIdentificationType: 'IDCD',
    },
  };
}

export function legalPerson(): Json {
  return {
    name: {
      nameIdentifier: [{ legalPersonName: 'Example Exchange GmbH', legalPersonNameIdentifierType: 'LEGL' }],
    },
    nationalIdentification: { nationalIdentifier: LEI, nationalIdentificationType: 'LEIX' },
    countryOfRegistration: 'DE',
  };
}

/** Shaped like the interface document's MAIN sample. */
export function mainSample(): Json {
  return {
    originator: { originatorPersons: [{ naturalPerson: naturalPerson() }], accountNumber: ['0xabc'] },
    beneficiary: {
      beneficiaryPersons: [
        {
          naturalPerson: {
            name: [{ nameIdentifier: [{ primaryIdentifier: 'Doe', secondaryIdentifier: 'John' }] }],
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
        },
      ],
      accountNumber: ['0xdef'],
    },
  };
}

/** Shaped like the BASIC sample: no beneficiary address at all. */
export function basicSample(): Json {
  const pii = mainSample();
  const beneficiary = (pii.beneficiary as { beneficiaryPersons: { naturalPerson: Json }[] })
    .beneficiaryPersons[0]!;
  delete beneficiary.naturalPerson.geographicAddress;
  return pii;
}

/** Shaped like the NOTIFY sample: no account numbers, beneficiary address null. */
export function notifySample(): Json {
  return {
    originator: { originatorPersons: [{ naturalPerson: naturalPerson() }] },
    beneficiary: {
      beneficiaryPersons: [
        {
          naturalPerson: {
            name: [{ nameIdentifier: [{ primaryIdentifier: 'Doe' }] }],
            geographicAddress: null,
          },
        },
      ],
    },
  };
}

/** A MAIN sample with one value replaced (or removed, for `undefined`) at a pointer below /pii. */
export function withValue(path: string, value: unknown, pii: Json = mainSample()): Json {
  const tokens = path.split('/').slice(2);
  let node: Record<string, unknown> = pii;
  for (const token of tokens.slice(0, -1)) node = node[token] as Record<string, unknown>;
  const last = tokens.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return pii;
}

export function withLegalOriginator(change: (person: Json) => void = () => {}): Json {
  const pii = mainSample();
  const person = legalPerson();
  change(person);
  (pii.originator as Json).originatorPersons = [{ legalPerson: person }];
  return pii;
}

export function assertProblem(problems: Problem[], path: string, message?: RegExp): void {
  const found = problems.filter((p) => p.path === path);
  assert.ok(found.length > 0, `expected a problem at ${path}, got ${JSON.stringify(problems)}`);
  if (message)
    assert.ok(
      found.some((p) => message.test(p.message)),
      `message at ${path}: ${JSON.stringify(found)}`,
    );
}

export function assertOnly(problems: Problem[], path: string, message?: RegExp): void {
  assertProblem(problems, path, message);
  assert.equal(problems.length, 1, JSON.stringify(problems));
}
