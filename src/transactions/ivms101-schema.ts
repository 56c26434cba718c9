// The `pii` shape for the OpenAPI document: the canonical (interface-document) spelling of IVMS101.
// It documents; it does not validate. `validatePii` (ivms101.ts) is the validator, because it also
// accepts the standard's alternative spellings, applies IVMS101's cross-field constraints and
// reports every problem with a pointer. Keep the two in step: codes and caps come from ivms101.ts,
// and a unit test checks that the example below passes `validatePii`.

import Type, { type TSchema } from 'typebox';
import {
  ADDRESS_TYPES,
  LEGAL_NAME_TYPES,
  LEGAL_PERSON_ID_TYPES,
  NATIONAL_ID_TYPES,
  NATURAL_NAME_TYPES,
} from './ivms101.js';

const text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description === undefined ? {} : { description }) });

const Country = (description: string) =>
  Type.String({
    pattern: '^[A-Z]{2}$',
    description: `${description}. ISO 3166-1 alpha-2, or XX if not known.`,
  });

const strict = <T extends Record<string, TSchema>>(properties: T, description: string) =>
  Type.Object(properties, { additionalProperties: false, description });

const NaturalPersonNameId = strict(
  {
    primaryIdentifier: text(100, 'Family name, or the full name where names are not split.'),
    secondaryIdentifier: Type.Optional(text(100, 'Given names.')),
    nameIdentifierType: Type.Optional(
      Type.Enum([...NATURAL_NAME_TYPES], { description: 'Nature of the name; read as LEGL when absent.' }),
    ),
  },
  'One name of a natural person.',
);

const NaturalPersonName = strict(
  {
    nameIdentifier: Type.Array(NaturalPersonNameId, { minItems: 1 }),
    localNameIdentifier: Type.Optional(Type.Array(NaturalPersonNameId)),
    phoneticNameIdentifier: Type.Optional(Type.Array(NaturalPersonNameId)),
  },
  'Names of a natural person; at least one must be the legal name (LEGL).',
);

const LegalPersonNameId = strict(
  {
    legalPersonName: text(100, 'Name of the legal person.'),
    legalPersonNameIdentifierType: Type.Optional(
      Type.Enum([...LEGAL_NAME_TYPES], { description: 'Nature of the name; read as LEGL when absent.' }),
    ),
  },
  'One name of a legal person.',
);

const LegalPersonName = strict(
  {
    nameIdentifier: Type.Array(LegalPersonNameId, { minItems: 1 }),
    localNameIdentifier: Type.Optional(Type.Array(LegalPersonNameId)),
    phoneticNameIdentifier: Type.Optional(Type.Array(LegalPersonNameId)),
  },
  'Names of a legal person; at least one must be the legal name (LEGL).',
);

const Address = strict(
  {
    addressType: Type.Enum([...ADDRESS_TYPES], {
      description: 'HOME, BIZZ (business) or GEOG (geographic).',
    }),
    department: Type.Optional(text(50)),
    subDepartment: Type.Optional(text(70)),
    streetName: Type.Optional(text(70)),
    buildingNumber: Type.Optional(text(16)),
    buildingName: Type.Optional(text(35)),
    floor: Type.Optional(text(70)),
    postBox: Type.Optional(text(16)),
    room: Type.Optional(text(70)),
    postCode: Type.Optional(text(16, 'Also accepted as `postcode` (not both).')),
    townName: Type.Optional(text(35)),
    townLocationName: Type.Optional(text(35)),
    districtName: Type.Optional(text(35)),
    countrySubDivision: Type.Optional(text(35)),
    addressLine: Type.Optional(Type.Array(text(70), { maxItems: 7 })),
    country: Country('Country of the address'),
  },
  'A postal address. It needs addressLine, or streetName with buildingNumber or buildingName.',
);

const NationalIdentification = (types: readonly string[], description: string) =>
  strict(
    {
      nationalIdentifier: text(35, 'The identifier; a valid ISO 17442 LEI when the type is LEIX.'),
      nationalIdentificationType: Type.Enum([...types], {
        description: 'Type of identifier. Also accepted as `nationalIdentifierType` (not both).',
      }),
      countryOfIssue: Type.Optional(Country('Issuing country')),
      registrationAuthority: Type.Optional(
        Type.String({ pattern: '^RA[0-9]{6}$', description: 'GLEIF registration authority code.' }),
      ),
    },
    description,
  );

const NaturalPerson = strict(
  {
    name: Type.Array(NaturalPersonName, {
      minItems: 1,
      description: 'Names. A single object (IVMS101 JSON) is accepted too.',
    }),
    geographicAddress: Type.Optional(Type.Union([Type.Array(Address), Type.Null()])),
    nationalIdentification: Type.Optional(
      NationalIdentification(NATIONAL_ID_TYPES, 'National identification.'),
    ),
    customerIdentification: Type.Optional(text(50, "The originating VASP's customer number.")),
    dateAndPlaceOfBirth: Type.Optional(
      strict(
        {
          dateOfBirth: Type.String({ format: 'date', description: 'YYYY-MM-DD, in the past.' }),
          placeOfBirth: text(70),
        },
        'Date and place of birth.',
      ),
    ),
    countryOfResidence: Type.Optional(Country('Country of residence')),
  },
  'A natural person. An originator needs geographicAddress, customerIdentification, ' +
    'nationalIdentification or dateAndPlaceOfBirth.',
);

const LegalPerson = strict(
  {
    name: Type.Array(LegalPersonName, {
      minItems: 1,
      description: 'Names. A single object (IVMS101 JSON) is accepted too.',
    }),
    geographicAddress: Type.Optional(Type.Union([Type.Array(Address), Type.Null()])),
    customerIdentification: Type.Optional(
      text(50, 'Customer number. Also accepted as `customerNumber` (not both).'),
    ),
    nationalIdentification: Type.Optional(
      NationalIdentification(
        LEGAL_PERSON_ID_TYPES,
        'National identification of a legal person: no countryOfIssue; a registrationAuthority ' +
          'unless the type is LEIX, and none when it is.',
      ),
    ),
    countryOfRegistration: Type.Optional(Country('Country of registration')),
  },
  'A legal person. An originator needs geographicAddress, customerIdentification or nationalIdentification.',
);

const Person = Type.Union(
  [
    strict({ naturalPerson: NaturalPerson }, 'A natural person.'),
    strict({ legalPerson: LegalPerson }, 'A legal person.'),
  ],
  { description: 'Exactly one of naturalPerson and legalPerson.' },
);

const AccountNumbers = Type.Optional(
  Type.Array(text(100), { description: 'Account numbers (e.g. blockchain addresses) of the persons.' }),
);

const PII_EXAMPLE = {
  originator: {
    originatorPersons: [
      {
        naturalPerson: {
          name: [{ nameIdentifier: [{ primaryIdentifier: 'Muster', secondaryIdentifier: 'Erika' }] }],
          geographicAddress: [
            {
              addressType: 'HOME',
              streetName: 'Heidestrasse',
              buildingNumber: '17',
              postCode: '51147',
              townName: 'Köln',
              country: 'DE',
            },
          ],
          nationalIdentification: {
            nationalIdentifier: 'C01X00T47',
            nationalIdentificationType: 'IDCD',
            countryOfIssue: 'DE',
          },
        },
      },
    ],
    accountNumber: ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
  },
  beneficiary: {
    beneficiaryPersons: [
      {
        naturalPerson: {
          name: [{ nameIdentifier: [{ primaryIdentifier: 'Doe', secondaryIdentifier: 'John' }] }],
        },
      },
    ],
    accountNumber: ['0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'],
  },
};

export const PiiSchema = Type.Object(
  {
    originator: strict(
      { originatorPersons: Type.Array(Person, { minItems: 1 }), accountNumber: AccountNumbers },
      'The originator: the persons sending the assets.',
    ),
    beneficiary: strict(
      { beneficiaryPersons: Type.Array(Person, { minItems: 1 }), accountNumber: AccountNumbers },
      'The beneficiary: the persons receiving the assets.',
    ),
  },
  {
    additionalProperties: false,
    description:
      'Personal data in IVMS101 (2020 field names). The hub checks more than this schema says ' +
      '(IVMS101 constraints, accepted alternative spellings); a 400 lists every problem in errors[].',
    examples: [PII_EXAMPLE],
  },
);
