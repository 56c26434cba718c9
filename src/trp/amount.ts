// TRP amounts. We send a digit string in the asset's smallest unit; inbound, a digit string is in
// the smallest unit and a JSON number is in whole units (SPEC §16, docs/trp.md).
// Invariants:
// - Amounts never pass through binary floating point when they arrive as strings, and a JSON
//   number is only accepted when its shortest round-trip text is exactly what the sender meant
//   (at most 15 significant digits, the precision every IEEE-754 double keeps); see `parseTrpAmount`.
// - Pure: no I/O.

/** Largest number of decimals an asset may have (as in the asset table). */
export const MAX_TRP_DECIMALS = 36;
/** Every decimal with at most this many significant digits survives a trip through a double. */
const DOUBLE_SAFE_DIGITS = 15;
const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

export class TrpAmountError extends Error {
  override readonly name = 'TrpAmountError';
}

function checkDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_TRP_DECIMALS) {
    throw new RangeError(`decimals must be an integer from 0 to ${MAX_TRP_DECIMALS}`);
  }
}

/** `int` and `frac` digit strings → the shortest decimal string (no leading or trailing zeros). */
function joinDecimal(int: string, frac: string): string {
  const whole = int.replace(/^0+(?=[0-9])/, '') || '0';
  const fraction = frac.replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** A JavaScript number's shortest round-trip text, with any exponent written out in full. */
function plainDecimal(n: number): string {
  const text = String(n);
  const match = /^([0-9])(?:\.([0-9]+))?e([+-][0-9]+)$/.exec(text);
  if (!match) return text;
  const digits = `${match[1]}${match[2] ?? ''}`;
  const point = 1 + Number(match[3]); // position of the decimal point within `digits`
  if (point <= 0) return joinDecimal('0', '0'.repeat(-point) + digits);
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return joinDecimal(digits.slice(0, point), digits.slice(point));
}

function significantDigits(decimal: string): number {
  return decimal.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
}

/**
 * Our amount (a decimal string in whole units, as the hub's API takes it) → TRP's: a digit
 * string in the asset's smallest unit, e.g. ("1250.5", 6) → "1250500000". Throws a
 * `TrpAmountError` for a malformed or zero amount, or more fractional digits than the asset has.
 */
export function toSmallestUnits(amount: string, decimals: number): string {
  checkDecimals(decimals);
  const match = DECIMAL.exec(amount);
  if (!match) throw new TrpAmountError('the amount must be a decimal number such as 12.5');
  const frac = (match[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) {
    throw new TrpAmountError(`the amount has more fractional digits than the asset's ${decimals}`);
  }
  const units = `${match[1]}${frac.padEnd(decimals, '0')}`.replace(/^0+/, '');
  if (units === '') throw new TrpAmountError('the amount must be greater than zero');
  return units;
}

/**
 * Our amount → a JSON number in whole units, for peers that want one (TRISA, Envoy). Throws
 * unless the number is exactly the amount: no digit may be lost on the way to a double.
 */
export function toWholeUnitsNumber(amount: string): number {
  const match = DECIMAL.exec(amount);
  if (!match) throw new TrpAmountError('the amount must be a decimal number such as 12.5');
  const exact = joinDecimal(match[1] ?? '0', match[2] ?? '');
  const n = Number(exact);
  if (!(n > 0)) throw new TrpAmountError('the amount must be greater than zero');
  if (plainDecimal(n) !== exact) {
    throw new TrpAmountError(
      'the amount has more digits than a JSON number carries exactly; send it as a string',
    );
  }
  return n;
}

/**
 * An inbound TRP amount → our decimal string in whole units, given the asset's decimals:
 * - a digit string is in the smallest unit ("21000", 8 → "0.00021"); done in string arithmetic;
 * - a JSON number is in whole units (0.000021 → "0.000021"). JSON.parse has already made it a
 *   double, so we read it back through its shortest round-trip text (`String(n)`, exponent
 *   written out: 1e-7 → "0.0000001"). That text is the sender's own when the sender wrote at most
 *   15 significant digits; longer ones are refused, as the double may not hold what was sent.
 * Either way the result must fit the asset's decimals and be greater than zero.
 */
export function parseTrpAmount(
  value: unknown,
  decimals: number,
): { ok: true; value: string } | { ok: false; message: string } {
  checkDecimals(decimals);
  let result: string;
  if (typeof value === 'string') {
    if (!/^[0-9]{1,100}$/.test(value)) {
      return { ok: false, message: 'a string amount must be at most 100 digits (the smallest unit)' };
    }
    const digits = value.replace(/^0+/, '');
    if (digits === '') return { ok: false, message: 'must be greater than zero' };
    const padded = digits.padStart(decimals + 1, '0');
    result = joinDecimal(padded.slice(0, padded.length - decimals), padded.slice(padded.length - decimals));
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0) return { ok: false, message: 'must be greater than zero' };
    result = plainDecimal(value);
    if (significantDigits(result) > DOUBLE_SAFE_DIGITS) {
      return {
        ok: false,
        message: `a JSON number amount may have at most ${DOUBLE_SAFE_DIGITS} significant digits; send a digit string in the smallest unit`,
      };
    }
    const fraction = result.split('.')[1] ?? '';
    if (fraction.length > decimals) {
      return { ok: false, message: `has more fractional digits than the asset's ${decimals}` };
    }
  } else {
    return {
      ok: false,
      message: 'must be a JSON number (whole units) or a string of digits (smallest unit)',
    };
  }
  return { ok: true, value: result };
}
