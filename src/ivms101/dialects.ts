// The IVMS101 dialects the hub reads (SPEC §18), as data. The normaliser (normalise.ts) takes the
// canonical element names from the validator's schema and these other names from here; the docs
// (docs/ivms101.md) list the same, and a unit test keeps the two in step.
//
// Beyond this table, every key is matched ignoring letter case and `_` (`Originator`,
// `originating_vasp`, `post_code`), and a list's name also in the plural (`nameIdentifiers`,
// `geographic_addresses`, `account_numbers`).

/** Other names of one canonical element. */
export interface ElementAlias {
  /** The canonical name (the interface document's, else IVMS101 2020's). */
  canonical: string;
  /** Names other networks or versions use for it. */
  also: readonly string[];
  /** Only IVMS101.2023 uses these names: a payload that does is read as 2023. */
  only2023?: true;
}

export const ELEMENT_ALIASES: readonly ElementAlias[] = [
  { canonical: 'originatorPersons', also: ['originatorPerson'], only2023: true },
  { canonical: 'beneficiaryPersons', also: ['beneficiaryPerson'], only2023: true },
  { canonical: 'nameIdentifierType', also: ['naturalPersonNameIdentifierType'], only2023: true },
  { canonical: 'nationalIdentificationType', also: ['nationalIdentifierType'] },
  { canonical: 'customerIdentification', also: ['customerNumber'] },
  { canonical: 'postCode', also: ['postcode'] },
];

/** Keys that wrap a whole message: `{ "ivms101": { … } }` (any letter case). */
export const MESSAGE_WRAPPERS: readonly string[] = ['ivms101'];

/** A key as the normaliser compares it: lower case, without `_`. */
export function fold(key: string): string {
  return key.toLowerCase().replaceAll('_', '');
}

/** A code value as sent, reduced to the code: `NATURAL_PERSON_NAME_TYPE_CODE_LEGL` → `LEGL`. */
export function codeOf(value: string): string {
  const at = value.toUpperCase().lastIndexOf('_CODE_');
  return at === -1 ? value : value.slice(at + '_CODE_'.length);
}
