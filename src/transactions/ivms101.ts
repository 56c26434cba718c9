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
//   C2  DateInPast                             dateOfBirth
//   C4  OriginatorInformationLegalPerson       originatorInformation(), originator legal persons
//   C5  LegalNamePresentLegalPerson            legalNamePresent()
//   C6  LegalNamePresentNaturalPerson          legalNamePresent()
//   C7  ValidNationalIdentifierLegalPerson     LEGAL_PERSON_ID_TYPES
//   C8  ValidAddress                           ADDRESS
//   C9  CompleteNationalIdentifierLegalPerson  legalNationalIdentification()
//   C10 RegistrationAuthority                  registrationAuthority (its form only, see there)
//   C11 ValidLEI                               leiWhenLeix()
// C12 (sequentialIntegrity) is about `transferPath`, which `pii` does not carry. C3 is not enforced.

import {
  at,
  type Check,
  checkObject,
  code,
  country,
  type Fields,
  isObject,
  isPresent,
  list,
  nullable,
  object,
  oneOrMany,
  type Shape,
  text,
} from './ivms101-check.js';
import type { Problem } from './problem.js';

export type { Problem } from './problem.js';

export const NATURAL_NAME_TYPES = ['LEGL', 'ALIA', 'BIRT', 'MAID', 'MISC'] as const;
export const LEGAL_NAME_TYPES = ['LEGL', 'SHRT', 'TRAD'] as const;
export const ADDRESS_TYPES = ['HOME', 'BIZZ', 'GEOG'] as const;
export const NATIONAL_ID_TYPES = [
  'ARNU',
  'CCPT',
  'RAID',
  'DRLC',
  'FIIN',
  'TXID',
  'SOCS',
  'IDCD',
  'LEIX',
  'MISC',
] as const;
// C7 ValidNationalIdentifierLegalPerson: a legal person is identified by a register entry, a tax
// number, an LEI or something else, never by a passport or driving licence.
export const LEGAL_PERSON_ID_TYPES = ['RAID', 'MISC', 'LEIX', 'TXID'] as const;

/** ISO 17442: 18 upper-case alphanumerics and 2 check digits, ISO 7064 MOD 97-10 over the whole code. */
export function isLei(value: string): boolean {
  if (!/^[0-9A-Z]{18}[0-9]{2}$/.test(value)) return false;
  let remainder = 0;
  for (const char of value) {
    const digits = Number.parseInt(char, 36); // '0'-'9' → 0-9, 'A'-'Z' → 10-35
    remainder = (remainder * (digits < 10 ? 10 : 100) + digits) % 97;
  }
  return remainder === 1;
}

/** A real calendar date in ISO 8601 `YYYY-MM-DD` (proleptic Gregorian leap years). */
function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

const dateOfBirth: Check = (value, parent, token, out) => {
  const message = dateOfBirthProblem(value);
  if (message !== undefined) out.push({ path: at(parent, token), message });
};

function dateOfBirthProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'must be a date as YYYY-MM-DD';
  if (!isCalendarDate(value)) return 'must be a valid calendar date';
  // C2 DateInPast. Same-length YYYY-MM-DD strings order like their dates; today (UTC) is not past.
  if (value >= new Date().toISOString().slice(0, 10)) return 'must be in the past';
  return undefined;
}

// C10 RegistrationAuthority: the standard wants a code from GLEIF's Registration Authorities List.
// We check its form (RA + 6 digits) but do not ship the list, which changes several times a year.
const registrationAuthority: Check = (value, parent, token, out) => {
  if (typeof value !== 'string') out.push({ path: at(parent, token), message: 'must be a string' });
  else if (!/^RA[0-9]{6}$/.test(value)) {
    out.push({
      path: at(parent, token),
      message: 'must be a GLEIF registration authority code (RA followed by 6 digits)',
    });
  }
};

// C11 ValidLEI, for any person whose identifier is declared to be an LEI.
function leiWhenLeix(fields: Fields, out: Problem[]): void {
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
function legalNationalIdentification(fields: Fields, out: Problem[]): void {
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

function nationalIdentification(types: readonly string[], after: (f: Fields, out: Problem[]) => void): Check {
  return object(
    {
      nationalIdentifier: { check: text(35), required: true },
      nationalIdentificationType: { check: code(types), required: true, alias: 'nationalIdentifierType' },
      countryOfIssue: { check: country },
      registrationAuthority: { check: registrationAuthority },
    },
    { after },
  );
}

// Address fields and their IVMS101 caps. C8 ValidAddress: either free address lines or at least a
// street with a building, so that an address can actually be found.
const ADDRESS: Check = object(
  {
    addressType: { check: code(ADDRESS_TYPES), required: true },
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
    country: { check: country, required: true },
  },
  {
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
  primaryIdentifier: { check: text(100), required: true },
  secondaryIdentifier: { check: text(100) },
  nameIdentifierType: { check: code(NATURAL_NAME_TYPES) },
};

const LEGAL_NAME_HINT =
  'unknown field; legal person names use legalPersonName and legalPersonNameIdentifierType';
const LEGAL_NAME_ID: Shape = {
  legalPersonName: { check: text(100), required: true },
  legalPersonNameIdentifierType: { check: code(LEGAL_NAME_TYPES) },
};

function personName(id: Shape, hints: Record<string, string> = {}): Check {
  const ids = object(id, { hints });
  return oneOrMany(
    object({
      nameIdentifier: { check: list(ids, { min: 1 }), required: true },
      localNameIdentifier: { check: list(ids) },
      phoneticNameIdentifier: { check: list(ids) },
    }),
  );
}

// C5/C6 LegalNamePresent: some nameIdentifier must be the legal name. An absent type reads as LEGL
// (SPEC §6), so only a name made entirely of aliases, trade names etc. fails. A broken name tree or
// an unknown type code is already reported by its own check, and the rule is skipped then rather
// than guessing what the sender meant.
function legalNamePresent(fields: Fields, typeKey: string, codes: readonly string[], out: Problem[]): void {
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

const NATURAL_PERSON: Shape = {
  name: { check: personName(NATURAL_NAME_ID), required: true },
  geographicAddress: { check: nullable(list(ADDRESS)) },
  nationalIdentification: { check: nationalIdentification(NATIONAL_ID_TYPES, leiWhenLeix) },
  customerIdentification: { check: text(50) },
  dateAndPlaceOfBirth: {
    check: object({
      dateOfBirth: { check: dateOfBirth, required: true },
      placeOfBirth: { check: text(70), required: true },
    }),
  },
  countryOfResidence: { check: country },
};

const LEGAL_PERSON: Shape = {
  name: {
    check: personName(LEGAL_NAME_ID, {
      primaryIdentifier: LEGAL_NAME_HINT,
      secondaryIdentifier: LEGAL_NAME_HINT,
      nameIdentifierType: LEGAL_NAME_HINT,
    }),
    required: true,
  },
  geographicAddress: { check: nullable(list(ADDRESS)) },
  customerIdentification: { check: text(50), alias: 'customerNumber' },
  nationalIdentification: {
    check: nationalIdentification(LEGAL_PERSON_ID_TYPES, legalNationalIdentification),
  },
  countryOfRegistration: { check: country },
};

const NATURAL_PERSON_HINTS = { customerNumber: 'unknown field; natural persons use customerIdentification' };

// C1 OriginatorInformationNaturalPerson: enough to tell the originator apart from namesakes.
const C1_FIELDS = [
  'geographicAddress',
  'customerIdentification',
  'nationalIdentification',
  'dateAndPlaceOfBirth',
];

function originatorInformation(fields: Fields, required: readonly string[], out: Problem[]): void {
  if (!required.some((key) => isPresent(fields.value(key)))) {
    out.push({ path: fields.path, message: `an originator needs one of ${required.join(', ')}` });
  }
}

// C4 OriginatorInformationLegalPerson, as the standard words it: a geographicAddress with addressType
// GEOG, a nationalIdentification or a customer number (customerIdentification here).
function legalOriginatorInformation(fields: Fields, out: Problem[]): void {
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
    after: (fields, out) => {
      legalNamePresent(fields, 'nameIdentifierType', NATURAL_NAME_TYPES, out);
      if (originator) originatorInformation(fields, C1_FIELDS, out);
    },
  });
  const legalPerson = object(LEGAL_PERSON, {
    after: (fields, out) => {
      legalNamePresent(fields, 'legalPersonNameIdentifierType', LEGAL_NAME_TYPES, out);
      if (originator) legalOriginatorInformation(fields, out);
    },
  });
  const shape: Shape = { naturalPerson: { check: naturalPerson }, legalPerson: { check: legalPerson } };
  return object(shape, {
    after: (fields, out) => {
      if ((fields.value('naturalPerson') === undefined) === (fields.value('legalPerson') === undefined)) {
        out.push({ path: fields.path, message: 'must contain exactly one of naturalPerson and legalPerson' });
      }
    },
  });
}

function side(personsKey: string, originator: boolean): Check {
  return object({
    [personsKey]: { check: list(person(originator), { min: 1 }), required: true },
    accountNumber: { check: list(text(100)) },
  });
}

const PII: Shape = {
  originator: { check: side('originatorPersons', true), required: true },
  beneficiary: { check: side('beneficiaryPersons', false), required: true },
};

/**
 * Every problem with `pii`, or an empty array when it is valid. `basePath` is the (escaped) JSON
 * pointer of `pii` within the request body.
 */
export function validatePii(pii: unknown, basePath = '/pii'): Problem[] {
  const out: Problem[] = [];
  checkObject(pii, basePath, PII, out);
  return out;
}
