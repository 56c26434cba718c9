/**
 * Currency rates for the rules (SPEC §15), from the operator's HUB_FX_RATES file: a transfer's
 * value in one currency is compared with a threshold in another through them. Without the file,
 * or without a rate for either currency, no comparison is possible and the transfer counts as
 * above the threshold (the caller decides; see evaluate.ts).
 *
 * The file is JSON: `{ "base": "USD", "date": "2026-11-27", "rates": { "EUR": "0.92", ... } }`,
 * each rate the units of that currency one unit of `base` buys, as a decimal string.
 */
import { readFileSync } from 'node:fs';
import { compareDecimals, compareProducts, isDecimal } from './decimal.js';

export interface FxRates {
  base: string;
  date: string;
  /** Units of each currency per unit of base; the base itself is 1. */
  rates: Map<string, string>;
}

export const NO_RATES: FxRates = { base: 'USD', date: '', rates: new Map([['USD', '1']]) };

const CURRENCY = /^[A-Z]{3}$/;

export function loadFxRates(file: string): FxRates {
  const fail = (what: string): never => {
    throw new Error(`rates file ${file}: ${what}`);
  };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new Error(`rates file ${file}: cannot read it as JSON (${(cause as Error).message})`, { cause });
  }
  const r = raw as { base?: unknown; date?: unknown; rates?: unknown };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('must be a JSON object');
  if (Object.keys(raw as object).some((k) => !['base', 'date', 'rates'].includes(k))) {
    fail('has unknown fields (allowed: base, date, rates)');
  }
  if (typeof r.base !== 'string' || !CURRENCY.test(r.base))
    fail('needs "base", an ISO 4217 code such as USD');
  if (typeof r.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(r.date)) fail('needs "date" (YYYY-MM-DD)');
  if (typeof r.rates !== 'object' || r.rates === null || Array.isArray(r.rates)) {
    fail('needs "rates": { "<ISO 4217>": "<decimal>" }');
  }
  const rates = new Map<string, string>([[r.base as string, '1']]);
  for (const [currency, rate] of Object.entries(r.rates as object)) {
    if (!CURRENCY.test(currency)) fail(`"${currency}" is not an ISO 4217 code`);
    if (typeof rate !== 'string' || !isDecimal(rate) || compareDecimals(rate, '0') === 0) {
      fail(`the rate of ${currency} must be a decimal string greater than zero`);
    }
    if (currency === r.base && compareDecimals(rate, '1') !== 0) fail(`the base currency's rate must be 1`);
    rates.set(currency, rate);
  }
  return { base: r.base as string, date: r.date as string, rates };
}

/**
 * Sign of value − threshold (−1, 0, 1) with the value converted into the threshold's currency;
 * undefined when a rate is missing.
 */
export function compareMoney(
  fx: FxRates,
  value: { amount: string; currency: string },
  threshold: { amount: string; currency: string },
): number | undefined {
  if (value.currency === threshold.currency) return compareDecimals(value.amount, threshold.amount);
  const rValue = fx.rates.get(value.currency);
  const rThreshold = fx.rates.get(threshold.currency);
  if (rValue === undefined || rThreshold === undefined) return undefined;
  // value / rValue (in base) against threshold / rThreshold: cross-multiplied, all positive.
  return compareProducts(value.amount, rThreshold, threshold.amount, rValue);
}
