/**
 * Jurisdictions (SPEC §15): an organization's `jurisdiction` is an ISO 3166-1 alpha-2 country code
 * from the maintained list the IVMS101 checks use (without IVMS101's `XX`, which names no law).
 * Which rules-table entry a country uses is the table's business (table.ts): its own entry, an entry
 * that lists it among its `countries` (the EU entry lists the EU and EEA states), or the FATF baseline.
 */
import { getAlpha2Codes } from 'i18n-iso-countries/index.js';

const COUNTRIES = new Set(Object.keys(getAlpha2Codes()));

/** An ISO 3166-1 alpha-2 code, in upper case. */
export function isJurisdiction(value: string): boolean {
  return COUNTRIES.has(value);
}
