// Validation of an initiation request's `pii` against IVMS101 (2020 field names) as SPEC §6 defines it.
// Invariants:
// - Pure: no I/O, no clock beyond "today" for date-of-birth checks; the input is never modified,
//   because `pii` is stored and forwarded exactly as submitted.
// - Every problem is reported (not just the first), each with a JSON pointer from the body root.
// - Messages never contain submitted values (they are personal data).
// - The interface document's spellings are canonical; the standard's spellings that SPEC §6 lists
//   are accepted as aliases, never both at once.
//
// IVMS101 constraints, by the standard's numbering, and where each is enforced:
//   C1  OriginatorInformationNaturalPerson     originatorInformation(), originator natural persons
//   C2  DateInPast                             dateOfBirth (codes.ts)
//   C4  OriginatorInformationLegalPerson       originatorInformation(), originator legal persons
//   C5  LegalNamePresentLegalPerson            legalNamePresent()
//   C6  LegalNamePresentNaturalPerson          legalNamePresent()
//   C7  ValidNationalIdentifierLegalPerson     LEGAL_PERSON_ID_TYPES (codes.ts)
//   C8  ValidAddress                           ADDRESS
//   C9  CompleteNationalIdentifierLegalPerson  legalNationalIdentification()
//   C10 RegistrationAuthority                  registrationAuthority (codes.ts; its form only)
//   C11 ValidLEI                               leiWhenLeix()
// C12 (sequentialIntegrity) is about `transferPath`, which `pii` does not carry. C3 is not enforced.

import type { FieldProblem } from '../text/json-pointer.js';
import {
  type Check,
  check,
  checkObject,
  code,
  country,
  type Fields,
  isObject,
  isPresent,
  list,
  nullable,
  object,
  objectSchema,
  oneOrMany,
  type Shape,
  text,
} from './check.js';
import {
  ADDRESS_TYPES,
  dateOfBirth,
  isLei,
  LEGAL_NAME_TYPES,
  LEGAL_PERSON_ID_TYPES,
  NATIONAL_ID_TYPES,
  NATURAL_NAME_TYPES,
  registrationAuthority,
} from './codes.js';

// C11 ValidLEI, for any person whose identifier is declared to be an LEI.
function leiWhenLeix(fields: Fields, out: FieldProblem[]): void {
  const id = fields.value('nationalIdentifier');
  if (fields.value('nationalIdentificationType') === 'LEIX' && typeof id === 'string' && !isLei(id)) {
    out.push({
      path: fields.at('nationalIdentifier'),
      message: 'must be a valid ISO 17442 LEI when the type is LEIX',
    });
  }
}

// C9 CompleteNationalIdentifierLegalPerson: no country of issue (a legal person has
// countryOfRegistration instead); a registration authority unless the identifier is an LEI, whose
// issuer is always GLEIF, so naming one beside an LEI is an error too.
function legalNationalIdentification(fields: Fields, out: FieldProblem[]): void {
  if (fields.value('countryOfIssue') !== undefined) {
    out.push({ path: fields.at('countryOfIssue'), message: 'must be absent for a legal person' });
  }
  const type = fields.value('nationalIdentificationType');
  const authority = fields.value('registrationAuthority');
  if (type === 'LEIX' && authority !== undefined) {
    out.push({ path: fields.at('registrationAuthority'), message: 'must be absent when the type is LEIX' });
  } else if (type !== 'LEIX' && isLegalPersonIdType(type) && authority === undefined) {
    out.push({ path: fields.at('registrationAuthority'), message: 'is required unless the type is LEIX' });
  }
  leiWhenLeix(fields, out);
}

function isLegalPersonIdType(value: unknown): boolean {
  return (LEGAL_PERSON_ID_TYPES as readonly unknown[]).includes(value);
}

function nationalIdentification(
  types: readonly string[],
  after: (f: Fields, out: FieldProblem[]) => void,
  description: string,
): Check {
  return object(
    {
      nationalIdentifier: {
        check: text(35),
        required: true,
        description: 'The identifier; a valid ISO 17442 LEI when the type is LEIX.',
      },
      nationalIdentificationType: {
        check: code(types),
        required: true,
        alias: 'nationalIdentifierType',
        description: 'Type of identifier.',
      },
      countryOfIssue: { check: country, description: 'Issuing country.' },
      registrationAuthority: { check: registrationAuthority },
    },
    { after, description },
  );
}

// Address fields and their IVMS101 caps. C8 ValidAddress: either free address lines or at least a
// street with a building, so that an address can actually be found.
const ADDRESS: Check = object(
  {
    addressType: {
      check: code(ADDRESS_TYPES),
      required: true,
      description: 'HOME, BIZZ (business) or GEOG (geographic).',
    },
    department: { check: text(50) },
    subDepartment: { check: text(70) },
    streetName: { check: text(70) },
    buildingNumber: { check: text(16) },
    buildingName: { check: text(35) },
    floor: { check: text(70) },
    postBox: { check: text(16) },
    room: { check: text(70) },
    postCode: { check: text(16), alias: 'postcode' },
    townName: { check: text(35) },
    townLocationName: { check: text(35) },
    districtName: { check: text(35) },
    countrySubDivision: { check: text(35) },
    addressLine: { check: list(text(70), { max: 7 }) },
    country: { check: country, required: true, description: 'Country of the address.' },
  },
  {
    description: 'A postal address. It needs addressLine, or streetName with buildingNumber or buildingName.',
    after: (f, out) => {
      const street = isPresent(f.value('streetName'));
      const building = isPresent(f.value('buildingNumber')) || isPresent(f.value('buildingName'));
      if (!isPresent(f.value('addressLine')) && !(street && building)) {
        out.push({
          path: f.path,
          message: 'must have addressLine, or streetName with buildingNumber or buildingName',
        });
      }
    },
  },
);

const NATURAL_NAME_ID: Shape = {
  primaryIdentifier: {
    check: text(100),
    required: true,
    description: 'Family name, or the full name where names are not split.',
  },
  secondaryIdentifier: { check: text(100), description: 'Given names.' },
  nameIdentifierType: {
    check: code(NATURAL_NAME_TYPES),
    description: 'Nature of the name; read as LEGL when absent.',
  },
};

const LEGAL_NAME_HINT =
  'unknown field; legal person names use legalPersonName and legalPersonNameIdentifierType';
const LEGAL_NAME_ID: Shape = {
  legalPersonName: { check: text(100), required: true, description: 'Name of the legal person.' },
  legalPersonNameIdentifierType: {
    check: code(LEGAL_NAME_TYPES),
    description: 'Nature of the name; read as LEGL when absent.',
  },
};

function personName(id: Shape, description: string, hints: Record<string, string> = {}): Check {
  const ids = object(id, { hints });
  return oneOrMany(
    object(
      {
        nameIdentifier: { check: list(ids, { min: 1 }), required: true },
        localNameIdentifier: { check: list(ids) },
        phoneticNameIdentifier: { check: list(ids) },
      },
      { description },
    ),
  );
}

// C5/C6 LegalNamePresent: some nameIdentifier must be the legal name. An absent type reads as LEGL
// (SPEC §6), so only a name made entirely of aliases, trade names etc. fails. A broken name tree or
// an unknown type code is already reported by its own check, and the rule is skipped then rather
// than guessing what the sender meant.
function legalNamePresent(
  fields: Fields,
  typeKey: string,
  codes: readonly string[],
  out: FieldProblem[],
): void {
  const name = fields.value('name');
  let named = false;
  let legal = false;
  for (const n of Array.isArray(name) ? name : [name]) {
    if (!isObject(n) || !Array.isArray(n.nameIdentifier)) continue;
    for (const id of n.nameIdentifier) {
      if (!isObject(id)) continue;
      const type = id[typeKey] ?? 'LEGL';
      if (!codes.includes(type as string)) return;
      named = true;
      legal ||= type === 'LEGL';
    }
  }
  if (named && !legal) {
    out.push({ path: fields.at('name'), message: `must include a legal name (${typeKey} LEGL)` });
  }
}

const NAMES = 'Names. A single object (IVMS101 JSON) is accepted too.';

const NATURAL_PERSON: Shape = {
  name: {
    check: personName(
      NATURAL_NAME_ID,
      'Names of a natural person; at least one must be the legal name (LEGL).',
    ),
    required: true,
    description: NAMES,
  },
  geographicAddress: { check: nullable(list(ADDRESS)) },
  nationalIdentification: {
    check: nationalIdentification(NATIONAL_ID_TYPES, leiWhenLeix, 'National identification.'),
  },
  customerIdentification: { check: text(50), description: "The originating VASP's customer number." },
  dateAndPlaceOfBirth: {
    check: object(
      {
        dateOfBirth: { check: dateOfBirth, required: true },
        placeOfBirth: { check: text(70), required: true },
      },
      { description: 'Date and place of birth.' },
    ),
  },
  countryOfResidence: { check: country, description: 'Country of residence.' },
};

const LEGAL_PERSON: Shape = {
  name: {
    check: personName(LEGAL_NAME_ID, 'Names of a legal person; at least one must be the legal name (LEGL).', {
      primaryIdentifier: LEGAL_NAME_HINT,
      secondaryIdentifier: LEGAL_NAME_HINT,
      nameIdentifierType: LEGAL_NAME_HINT,
    }),
    required: true,
    description: NAMES,
  },
  geographicAddress: { check: nullable(list(ADDRESS)) },
  customerIdentification: { check: text(50), alias: 'customerNumber', description: 'Customer number.' },
  nationalIdentification: {
    check: nationalIdentification(
      LEGAL_PERSON_ID_TYPES,
      legalNationalIdentification,
      'National identification of a legal person: no countryOfIssue; a registrationAuthority ' +
        'unless the type is LEIX, and none when it is.',
    ),
  },
  countryOfRegistration: { check: country, description: 'Country of registration.' },
};

const NATURAL_PERSON_HINTS = { customerNumber: 'unknown field; natural persons use customerIdentification' };

// C1 OriginatorInformationNaturalPerson: enough to tell the originator apart from namesakes.
const C1_FIELDS = [
  'geographicAddress',
  'customerIdentification',
  'nationalIdentification',
  'dateAndPlaceOfBirth',
];

function originatorInformation(fields: Fields, required: readonly string[], out: FieldProblem[]): void {
  if (!required.some((key) => isPresent(fields.value(key)))) {
    out.push({ path: fields.path, message: `an originator needs one of ${required.join(', ')}` });
  }
}

// C4 OriginatorInformationLegalPerson, as the standard words it: a geographicAddress with addressType
// GEOG, a nationalIdentification or a customer number (customerIdentification here).
function legalOriginatorInformation(fields: Fields, out: FieldProblem[]): void {
  const addresses = fields.value('geographicAddress');
  const geog = Array.isArray(addresses) && addresses.some((a) => isObject(a) && a.addressType === 'GEOG');
  if (
    geog ||
    isPresent(fields.value('nationalIdentification')) ||
    isPresent(fields.value('customerIdentification'))
  ) {
    return;
  }
  out.push({
    path: fields.path,
    message:
      'an originator needs one of geographicAddress with addressType GEOG, customerIdentification, nationalIdentification',
  });
}

function person(originator: boolean): Check {
  const naturalPerson = object(NATURAL_PERSON, {
    hints: NATURAL_PERSON_HINTS,
    description:
      'A natural person. An originator needs geographicAddress, customerIdentification, ' +
      'nationalIdentification or dateAndPlaceOfBirth.',
    after: (fields, out) => {
      legalNamePresent(fields, 'nameIdentifierType', NATURAL_NAME_TYPES, out);
      if (originator) originatorInformation(fields, C1_FIELDS, out);
    },
  });
  const legalPerson = object(LEGAL_PERSON, {
    description:
      'A legal person. An originator needs geographicAddress, customerIdentification or nationalIdentification.',
    after: (fields, out) => {
      legalNamePresent(fields, 'legalPersonNameIdentifierType', LEGAL_NAME_TYPES, out);
      if (originator) legalOriginatorInformation(fields, out);
    },
  });
  const shape: Shape = { naturalPerson: { check: naturalPerson }, legalPerson: { check: legalPerson } };
  const either = object(shape, {
    after: (fields, out) => {
      if ((fields.value('naturalPerson') === undefined) === (fields.value('legalPerson') === undefined)) {
        out.push({ path: fields.path, message: 'must contain exactly one of naturalPerson and legalPerson' });
      }
    },
  });
  return check(either, {
    description: 'Exactly one of naturalPerson and legalPerson.',
    oneOf: [
      objectSchema({ naturalPerson: { check: naturalPerson, required: true } }, 'A natural person.'),
      objectSchema({ legalPerson: { check: legalPerson, required: true } }, 'A legal person.'),
    ],
  });
}

function side(personsKey: string, originator: boolean, description: string): Check {
  return object(
    {
      [personsKey]: { check: list(person(originator), { min: 1 }), required: true },
      accountNumber: {
        check: list(text(100)),
        description: 'Account numbers (e.g. blockchain addresses) of the persons.',
      },
    },
    { description },
  );
}

const PII: Shape = {
  originator: {
    check: side('originatorPersons', true, 'The originator: the persons sending the assets.'),
    required: true,
  },
  beneficiary: {
    check: side('beneficiaryPersons', false, 'The beneficiary: the persons receiving the assets.'),
    required: true,
  },
};

/**
 * Every problem with `pii`, or an empty array when it is valid. `basePath` is the (escaped) JSON
 * pointer of `pii` within the request body.
 */
export function validatePii(pii: unknown, basePath = '/pii'): FieldProblem[] {
  const out: FieldProblem[] = [];
  checkObject(pii, basePath, PII, out);
  return out;
}

/** The JSON schema of `pii` in its canonical spelling, made from the same shapes as the validator. */
export const PII_SCHEMA = objectSchema(
  PII,
  'Personal data in IVMS101 (2020 field names). The hub checks more than this schema says ' +
    '(IVMS101 constraints, accepted alternative spellings); a 400 lists every problem in errors[].',
);
