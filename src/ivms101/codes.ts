// IVMS101's code lists and the leaf checks of single values (dates, LEIs, registration
// authorities). Pure; messages never contain the submitted value.

import { at, check } from './check.js';

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

export const dateOfBirth = check(
  (value, parent, token, out) => {
    const message = dateOfBirthProblem(value);
    if (message !== undefined) out.push({ path: at(parent, token), message });
  },
  { type: 'string', format: 'date', description: 'YYYY-MM-DD, in the past.' },
);

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
export const registrationAuthority = check(
  (value, parent, token, out) => {
    if (typeof value !== 'string') out.push({ path: at(parent, token), message: 'must be a string' });
    else if (!/^RA[0-9]{6}$/.test(value)) {
      out.push({
        path: at(parent, token),
        message: 'must be a GLEIF registration authority code (RA followed by 6 digits)',
      });
    }
  },
  { type: 'string', pattern: '^RA[0-9]{6}$', description: 'GLEIF registration authority code.' },
);

// IVMS101's TransliterationMethodCode: the script a name or address was transliterated from
// (ISO 15924 letter codes, lower case as the standard writes them; `othr` for any other).
export const TRANSLITERATION_METHODS = [
  'arab',
  'aran',
  'armn',
  'cyrl',
  'deva',
  'geor',
  'grek',
  'hani',
  'hebr',
  'kana',
  'kore',
  'thai',
  'othr',
] as const;

// IVMS101.2023's PayloadVersionCode: `101` is the 2020 standard, `101.2023` the 2023 one.
export const PAYLOAD_VERSIONS = ['101', '101.2023'] as const;

/** An intermediary's place in the transfer path: a whole number from 0 (C12 checks the series). */
export const sequence = check(
  (value, parent, token, out) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      out.push({ path: at(parent, token), message: 'must be a whole number from 0' });
    }
  },
  { type: 'integer', minimum: 0, description: 'Place in the chain, from 0.' },
);
