// Validation of an IVMS101 message in the hub's canonical form (SPEC §6, §18). The normaliser
// (normalise.ts) turns every dialect into that form first and maps problems back to the caller's
// paths; this module sees canonical spellings only. Its shapes are the one description of the
// canonical form: the normaliser and the OpenAPI document both read the schema made from them.
// Invariants:
// - Pure: no I/O, no clock beyond "today" for date-of-birth checks; the input is never modified.
// - Every problem is reported (not just the first), each with a JSON pointer from the body root.
// - Messages never contain submitted values (they are personal data).
// - Only substance is checked: constraints, code lists, dates, LEI check digits, lengths.
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
//   C12 sequentialIntegrity                    sequentialIntegrity(), transferPath
// C3 (Country) is the `country` check of every country field.

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
  object,
  objectSchema,
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
  PAYLOAD_VERSIONS,
  registrationAuthority,
  sequence,
  TRANSLITERATION_METHODS,
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
        description: 'Type of identifier (IVMS101: `nationalIdentifierType`).',
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
    postCode: { check: text(16), description: 'Post code (IVMS101: `postcode`).' },
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
    description:
      'Nature of the name; read as LEGL when absent (IVMS101.2023: `naturalPersonNameIdentifierType`).',
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
  return list(
    object(
      {
        nameIdentifier: { check: list(ids, { min: 1 }), required: true },
        localNameIdentifier: { check: list(ids) },
        phoneticNameIdentifier: { check: list(ids) },
      },
      { description },
    ),
    { min: 1 },
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
  for (const n of Array.isArray(name) ? name : []) {
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

const NAMES = 'Names (IVMS101: one object; either is accepted).';

const NATURAL_PERSON: Shape = {
  name: {
    check: personName(
      NATURAL_NAME_ID,
      'Names of a natural person; at least one must be the legal name (LEGL).',
    ),
    required: true,
    description: NAMES,
  },
  geographicAddress: { check: list(ADDRESS) },
  nationalIdentification: {
    check: nationalIdentification(NATIONAL_ID_TYPES, leiWhenLeix, 'National identification.'),
  },
  customerIdentification: {
    check: text(50),
    description: "The VASP's customer number (also accepted as `customerNumber`).",
  },
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
  geographicAddress: { check: list(ADDRESS) },
  customerIdentification: {
    check: text(50),
    description: 'Customer number (IVMS101 2020: `customerNumber`).',
  },
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

type Role = 'originator' | 'beneficiary' | 'vasp';

/**
 * A person of the message. Originators and beneficiaries may carry account numbers (IVMS101.2023
 * puts them on the person); VASPs and intermediaries carry none. C1/C4 apply to originators only.
 */
function person(role: Role): Check {
  const naturalPerson = object(NATURAL_PERSON, {
    description:
      'A natural person. An originator needs geographicAddress, customerIdentification, ' +
      'nationalIdentification or dateAndPlaceOfBirth.',
    after: (fields, out) => {
      legalNamePresent(fields, 'nameIdentifierType', NATURAL_NAME_TYPES, out);
      if (role === 'originator') originatorInformation(fields, C1_FIELDS, out);
    },
  });
  const legalPerson = object(LEGAL_PERSON, {
    description:
      'A legal person. An originator needs geographicAddress, customerIdentification or nationalIdentification.',
    after: (fields, out) => {
      legalNamePresent(fields, 'legalPersonNameIdentifierType', LEGAL_NAME_TYPES, out);
      if (role === 'originator') legalOriginatorInformation(fields, out);
    },
  });
  const shape: Shape = {
    naturalPerson: { check: naturalPerson },
    legalPerson: { check: legalPerson },
    ...(role === 'vasp'
      ? {}
      : {
          accountNumber: {
            check: list(text(512)),
            description: "This person's account numbers (IVMS101.2023's place for them).",
          },
        }),
  };
  return object(shape, {
    description: 'Exactly one of naturalPerson and legalPerson.',
    hints: role === 'vasp' ? { accountNumber: 'unknown field; a VASP carries no account numbers' } : {},
    after: (fields, out) => {
      if ((fields.value('naturalPerson') === undefined) === (fields.value('legalPerson') === undefined)) {
        out.push({ path: fields.path, message: 'must contain exactly one of naturalPerson and legalPerson' });
      }
    },
  });
}

function side(personsKey: string, role: Role, description: string): Check {
  return object(
    {
      [personsKey]: { check: list(person(role), { min: 1 }), required: true },
      accountNumber: {
        check: list(text(100)),
        description: 'Account numbers (e.g. blockchain addresses) of the persons.',
      },
    },
    { description },
  );
}

/** An entity holding one VASP (IVMS101's OriginatingVASP and BeneficiaryVASP). */
function vasp(key: string, description: string): Check {
  return object({ [key]: { check: person('vasp'), required: true } }, { description });
}

// C12 sequentialIntegrity: the sequences are 0, 1, 2, … without gaps or repeats.
function sequentialIntegrity(fields: Fields, out: FieldProblem[]): void {
  const path = fields.value('transferPath');
  if (!Array.isArray(path)) return;
  const seen = path.map((step) => (isObject(step) ? step.sequence : undefined));
  if (!seen.every((n) => typeof n === 'number' && Number.isInteger(n))) return; // reported per step
  const sorted = [...(seen as number[])].sort((a, b) => a - b);
  if (sorted.some((n, i) => n !== i)) {
    out.push({
      path: fields.at('transferPath'),
      message: 'sequence values must start at 0 and rise by 1 without gaps or repeats (C12)',
    });
  }
}

const TRANSFER_PATH = object(
  {
    transferPath: {
      check: list(
        object(
          {
            intermediaryVASP: { check: person('vasp'), required: true },
            sequence: { check: sequence, required: true },
          },
          { description: 'An intermediary VASP and its place in the chain.' },
        ),
      ),
      required: true,
    },
  },
  { description: 'The intermediary VASPs, in the order of their sequence.', after: sequentialIntegrity },
);

const PAYLOAD_METADATA = object(
  {
    transliterationMethod: {
      check: list(code(TRANSLITERATION_METHODS)),
      description: 'Scripts transliterated to Latin in this message.',
    },
    payloadVersion: {
      check: code(PAYLOAD_VERSIONS),
      description: 'IVMS101 version of the payload: `101` (2020) or `101.2023`.',
    },
  },
  { description: 'About the message itself.' },
);

const PII: Shape = {
  originator: {
    check: side('originatorPersons', 'originator', 'The originator: the persons sending the assets.'),
    required: true,
  },
  beneficiary: {
    check: side('beneficiaryPersons', 'beneficiary', 'The beneficiary: the persons receiving the assets.'),
    required: true,
  },
  originatingVASP: {
    check: vasp('originatingVASP', "The originator's VASP; filled in from the directory when absent."),
  },
  beneficiaryVASP: {
    check: vasp('beneficiaryVASP', "The beneficiary's VASP; filled in from the directory when absent."),
  },
  transferPath: { check: TRANSFER_PATH },
  payloadMetadata: { check: PAYLOAD_METADATA },
};

/**
 * Every problem with a message in canonical form, or an empty array when it is valid. `basePath`
 * is the (escaped) JSON pointer of the message within the request body.
 */
export function validateCanonical(message: unknown, basePath: string): FieldProblem[] {
  const out: FieldProblem[] = [];
  checkObject(message, basePath, PII, out);
  return out;
}

/** The JSON schema of the canonical form, made from the same shapes as the validator. */
export const PII_SCHEMA = objectSchema(
  PII,
  'Personal data: an IVMS101 message (2020 field names as the interface document shows them). ' +
    'Every dialect of docs/ivms101.md is accepted too; the hub checks more than this schema says ' +
    '(IVMS101 constraints); a 400 lists every problem in errors[].',
);
