/**
 * IVMS101 payloads written the way other networks write them, and what the HTTP suites do with
 * them (SPEC §18), with values of our own:
 * the shapes follow what each network's public test data and documentation show (see
 * test/fixtures/ivms101/README.md), the names, identifiers and addresses are made up here. Each
 * takes the originator's family name and an account number, so a test can look for them at the
 * receiving end.
 */
import assert from 'node:assert/strict';
import { generateParticipantKeyPair } from '../../src/crypto/jwe.js';
import type { OrgFixture, TestHub } from '../harness.js';
import { eventually, Receiver, verified } from './receiver.js';
import { type Json, mainRequest } from './requests.js';

export interface Dialect {
  /** Whose shape it follows. */
  network: string;
  /** The IVMS101 version the hub should detect. */
  version: '2020' | '2023';
  pii(name: string, account: string): Record<string, unknown>;
}

const LEI = '529900T8BM49AURSDO55'; // a real LEI (valid check digits)

export const DIALECTS: Dialect[] = [
  {
    network: 'TRISA JSON (name as one object, nationalIdentifierType, both VASPs wrapped)',
    version: '2020',
    pii: (name, account) => ({
      originator: {
        originatorPersons: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [
                  { primaryIdentifier: name, secondaryIdentifier: 'Ilse', nameIdentifierType: 'LEGL' },
                  {
                    primaryIdentifier: `${name}-Born`,
                    secondaryIdentifier: 'Ilse',
                    nameIdentifierType: 'BIRT',
                  },
                ],
              },
              geographicAddress: [
                {
                  addressType: 'HOME',
                  streetName: 'Lindenallee',
                  buildingNumber: '4',
                  postCode: '10115',
                  townName: 'Berlin',
                  country: 'DE',
                },
              ],
              nationalIdentification: {
                nationalIdentifier: 'T22000129',
                nationalIdentifierType: 'IDCD',
                countryOfIssue: 'DE',
              },
              customerIdentification: 'CUST-4711',
              dateAndPlaceOfBirth: { dateOfBirth: '1984-03-09', placeOfBirth: 'Leipzig' },
              countryOfResidence: 'DE',
            },
          },
        ],
        accountNumber: [account],
      },
      beneficiary: {
        beneficiaryPersons: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [
                  { primaryIdentifier: 'Okafor', secondaryIdentifier: 'Ada', nameIdentifierType: 'LEGL' },
                ],
              },
            },
          },
        ],
        accountNumber: ['bc1qbeneficiary0000000000000000000000000'],
      },
      originatingVASP: {
        originatingVASP: {
          legalPerson: {
            name: {
              nameIdentifier: [
                { legalPersonName: 'Sender Exchange AG', legalPersonNameIdentifierType: 'LEGL' },
              ],
            },
            nationalIdentification: { nationalIdentifier: LEI, nationalIdentifierType: 'LEIX' },
            countryOfRegistration: 'CH',
          },
        },
      },
    }),
  },
  {
    network: 'TRISA protobuf JSON (snake_case keys, enum names, empty strings and lists)',
    version: '2020',
    pii: (name, account) => ({
      originator: {
        originator_persons: [
          {
            natural_person: {
              name: {
                name_identifiers: [
                  {
                    primary_identifier: name,
                    secondary_identifier: 'Ilse',
                    name_identifier_type: 'NATURAL_PERSON_NAME_TYPE_CODE_LEGL',
                  },
                ],
                local_name_identifiers: [],
                phonetic_name_identifiers: [],
              },
              geographic_addresses: [
                {
                  address_type: 'ADDRESS_TYPE_CODE_HOME',
                  department: '',
                  street_name: 'Lindenallee',
                  building_number: '4',
                  building_name: '',
                  post_code: '10115',
                  town_name: 'Berlin',
                  address_line: [],
                  country: 'DE',
                },
              ],
              national_identification: {
                national_identifier: 'T22000129',
                national_identifier_type: 'NATIONAL_IDENTIFIER_TYPE_CODE_IDCD',
                country_of_issue: 'DE',
                registration_authority: '',
              },
              customer_identification: 'CUST-4711',
              date_and_place_of_birth: { date_of_birth: '1984-03-09', place_of_birth: 'Leipzig' },
              country_of_residence: 'DE',
            },
          },
        ],
        account_numbers: [account],
      },
      beneficiary: {
        beneficiary_persons: [
          {
            legal_person: {
              name: {
                name_identifiers: [
                  {
                    legal_person_name: 'Okafor Trading Ltd',
                    legal_person_name_identifier_type: 'LEGAL_PERSON_NAME_TYPE_CODE_LEGL',
                  },
                ],
                local_name_identifiers: [],
                phonetic_name_identifiers: [],
              },
              customer_number: '',
              country_of_registration: 'GB',
            },
          },
        ],
        account_numbers: ['bc1qbeneficiary0000000000000000000000000'],
      },
      transfer_path: { transfer_path: [] },
      payload_metadata: { transliteration_method: [] },
    }),
  },
  {
    network: 'a TRP inquiry’s IVMS101 (no account numbers, originatingVASP only)',
    version: '2020',
    pii: (name, account) => ({
      originator: {
        originatorPersons: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [
                  { primaryIdentifier: name, secondaryIdentifier: 'Ilse', nameIdentifierType: 'LEGL' },
                ],
              },
              geographicAddress: [
                {
                  addressType: 'GEOG',
                  streetName: 'Harbour Road',
                  buildingNumber: '88',
                  buildingName: 'Pier House',
                  postCode: '90210',
                  townName: 'Port Town',
                  countrySubDivision: 'California',
                  country: 'US',
                },
              ],
              customerIdentification: 'CUST-4711',
            },
          },
        ],
        accountNumber: [account],
      },
      beneficiary: {
        beneficiaryPersons: [
          {
            naturalPerson: {
              name: { nameIdentifier: [{ primaryIdentifier: 'Okafor', nameIdentifierType: 'LEGL' }] },
            },
          },
        ],
      },
      originatingVASP: {
        originatingVASP: {
          legalPerson: {
            name: {
              nameIdentifier: [{ legalPersonName: 'Sender VASP', legalPersonNameIdentifierType: 'LEGL' }],
            },
            nationalIdentification: { nationalIdentifier: LEI, nationalIdentifierType: 'LEIX' },
          },
        },
      },
    }),
  },
  {
    network: 'CODE (PascalCase entities, postcode, local names in Hangul, both VASPs)',
    version: '2020',
    pii: (name, account) => ({
      Originator: {
        originatorPersons: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [
                  { primaryIdentifier: name, secondaryIdentifier: 'Minji', nameIdentifierType: 'LEGL' },
                ],
                localNameIdentifier: [
                  { primaryIdentifier: '김민지', secondaryIdentifier: '', nameIdentifierType: 'LEGL' },
                ],
              },
              dateAndPlaceOfBirth: { dateOfBirth: '1991-07-21', placeOfBirth: 'Busan' },
              customerIdentification: 'KR-CUST-001',
              countryOfResidence: 'KR',
            },
          },
        ],
        accountNumber: [account],
      },
      Beneficiary: {
        beneficiaryPersons: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [
                  { primaryIdentifier: 'Park', secondaryIdentifier: 'Joon', nameIdentifierType: 'LEGL' },
                ],
                localNameIdentifier: [
                  { primaryIdentifier: '박준', secondaryIdentifier: '', nameIdentifierType: 'LEGL' },
                ],
              },
              countryOfResidence: 'KR',
            },
          },
        ],
        accountNumber: ['rBeneficiaryXrpAddress000000000:memo'],
      },
      OriginatingVASP: {
        originatingVASP: {
          legalPerson: {
            name: {
              nameIdentifier: [
                { legalPersonName: 'Seoul Sender Inc.', legalPersonNameIdentifierType: 'LEGL' },
              ],
            },
            geographicAddress: [
              {
                addressType: 'GEOG',
                streetName: 'Teheran-ro',
                buildingNumber: '100',
                postcode: '06234',
                townName: 'Seoul',
                addressLine: ['100 Teheran-ro, Gangnam-gu', '10th floor'],
                country: 'KR',
              },
            ],
            nationalIdentification: {
              nationalIdentifier: '1208800767',
              nationalIdentifierType: 'RAID',
              registrationAuthority: 'RA000657',
            },
            countryOfRegistration: 'KR',
          },
        },
      },
      BeneficiaryVASP: {
        beneficiaryVASP: {
          legalPerson: {
            name: {
              nameIdentifier: [
                { legalPersonName: 'Busan Receiver Corp.', legalPersonNameIdentifierType: 'LEGL' },
              ],
            },
            nationalIdentification: {
              nationalIdentifier: '6048134425',
              nationalIdentifierType: 'RAID',
              registrationAuthority: 'RA000657',
            },
            countryOfRegistration: 'KR',
          },
        },
      },
    }),
  },
  {
    network: 'Global Travel Rule (bare VASPs, postcode, customerIdentification on a legal person)',
    version: '2020',
    pii: (name, account) => ({
      originator: {
        originatorPersons: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [
                  { primaryIdentifier: name, secondaryIdentifier: 'Ilse', nameIdentifierType: 'LEGL' },
                ],
              },
              geographicAddress: [
                {
                  addressType: 'GEOG',
                  streetName: 'Market Street',
                  buildingNumber: '12',
                  postcode: '94105',
                  townName: 'San Francisco',
                  countrySubDivision: 'CA',
                  country: 'US',
                },
              ],
              nationalIdentification: {
                nationalIdentifier: 'P1234567',
                nationalIdentifierType: 'CCPT',
                countryOfIssue: 'US',
              },
              customerIdentification: 'CUST-4711',
            },
          },
        ],
        accountNumber: [account],
      },
      beneficiary: {
        beneficiaryPersons: [
          {
            legalPerson: {
              name: {
                nameIdentifier: [
                  { legalPersonName: 'Maple Receiver Inc', legalPersonNameIdentifierType: 'LEGL' },
                ],
              },
              customerIdentification: 'CA-77',
              countryOfRegistration: 'CA',
            },
          },
        ],
        accountNumber: ['1BeneficiaryBitcoinAddress000000'],
      },
      originatingVASP: {
        legalPerson: {
          name: { nameIdentifier: [{ legalPersonName: 'VASP A', legalPersonNameIdentifierType: 'LEGL' }] },
          nationalIdentification: { nationalIdentifier: LEI, nationalIdentifierType: 'LEIX' },
          customerIdentification: 'VASP-A-1',
        },
      },
    }),
  },
  {
    network: 'IVMS101.2023 (originatorPerson, naturalPersonNameIdentifierType, accounts on persons)',
    version: '2023',
    pii: (name, account) => ({
      originator: {
        originatorPerson: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [
                  {
                    primaryIdentifier: name,
                    secondaryIdentifier: 'Ilse',
                    naturalPersonNameIdentifierType: 'LEGL',
                  },
                ],
              },
              geographicAddress: [
                {
                  addressType: 'HOME',
                  streetName: 'Lindenallee',
                  buildingNumber: '4',
                  postcode: '10115',
                  townName: 'Berlin',
                  country: 'DE',
                },
              ],
              customerIdentification: 'CUST-4711',
            },
            accountNumber: [account],
          },
        ],
      },
      beneficiary: {
        beneficiaryPerson: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [{ primaryIdentifier: 'Okafor', naturalPersonNameIdentifierType: 'LEGL' }],
              },
            },
            accountNumber: ['0xbeneficiary00000000000000000000000000000'],
          },
        ],
      },
      payloadMetadata: { payloadVersion: '101.2023' },
    }),
  },
];

const receivers: Receiver[] = [];
export async function closeReceivers(): Promise<void> {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
}

/** Every string in a JSON value. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

/** The values that identify someone: names, identifiers, account numbers (not codes, '' or versions). */
export const identifying = (pii: unknown) =>
  strings(pii).filter((s) => s.trim() !== '' && !/^[A-Z_]*[A-Z]{4}$/.test(s) && !/^101(\.2023)?$/.test(s));

/** An originator and two beneficiaries, one receiving IVMS101 2020 and one 2023, at paths of one receiver. */
export interface Members {
  receiver: Receiver;
  originator: OrgFixture;
  v2020: OrgFixture;
  v2023: OrgFixture;
  keys: { publicKeyPem: string; privateKeyPem: string };
}

export async function members(hub: TestHub): Promise<Members> {
  const receiver = await Receiver.start();
  receivers.push(receiver);
  const keys = generateParticipantKeyPair();
  return {
    receiver,
    keys,
    originator: await hub.createOrg({ travelEndpoint: `${receiver.url}/orig` }),
    v2020: await hub.createOrg({ travelEndpoint: `${receiver.url}/v2020`, publicKey: keys.publicKeyPem }),
    v2023: await hub.createOrg({
      travelEndpoint: `${receiver.url}/v2023`,
      publicKey: keys.publicKeyPem,
      ivms101Version: '2023',
    }),
  };
}

/**
 * Initiates a MAIN transfer with `pii` to `member`, confirms it, and returns the `ivms101Data` of
 * the `confirmed-data` webhook it receives (its signature verified as a participant would).
 */
export async function deliverConfirmed(
  hub: TestHub,
  m: Members,
  member: OrgFixture,
  pii: unknown,
  what: string,
): Promise<Json> {
  const res = await hub.request('POST', '/v1/transactions/initiate', {
    key: m.originator.apiKey,
    body: { ...mainRequest(member.vaspDid), pii },
  });
  assert.equal(res.status, 200, `${what}: ${res.text}`);
  const ref = res.body.transactionRef as string;
  await hub.acknowledgeReceived(ref);
  const confirmed = await hub.request('POST', '/v1/transactions/confirm', {
    key: m.originator.apiKey,
    body: { transactionRef: ref },
  });
  assert.equal(confirmed.status, 200, confirmed.text);
  const path = member === m.v2023 ? '/v2023' : '/v2020';
  const request = await eventually(
    async () =>
      m.receiver
        .to(`${path}/v1/notify/confirmed-data`)
        .find((r) => verified(r, member.webhookSecret).transactionRef === ref),
    `confirmed-data for ${what}`,
  );
  return verified(request, member.webhookSecret).ivms101Data as Json;
}
