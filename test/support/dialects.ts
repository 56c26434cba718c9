/**
 * IVMS101 payloads written the way other networks write them (SPEC §18), with values of our own:
 * the shapes follow what each network's public test data and documentation show (see
 * test/fixtures/ivms101/README.md), the names, identifiers and addresses are made up here. Each
 * takes the originator's family name and an account number, so a test can look for them at the
 * receiving end.
 */
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
