/**
 * Exact decimal arithmetic for money comparisons: amounts and rates are decimal strings and are
 * never parsed into binary floats, so a value exactly at a threshold compares as equal.
 */
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** A non-negative decimal string such as `1000` or `0.9215` (at most 40 characters). */
export function isDecimal(value: string): boolean {
  return value.length <= 40 && DECIMAL.test(value);
}

/** A decimal as an integer and the power of ten it is scaled by. */
interface Scaled {
  digits: bigint;
  scale: number;
}

function parse(value: string): Scaled {
  const [whole, fraction = ''] = value.split('.');
  return { digits: BigInt(`${whole}${fraction}`), scale: fraction.length };
}

function product(a: Scaled, b: Scaled): Scaled {
  return { digits: a.digits * b.digits, scale: a.scale + b.scale };
}

function compareScaled(a: Scaled, b: Scaled): number {
  const scale = Math.max(a.scale, b.scale);
  const x = a.digits * 10n ** BigInt(scale - a.scale);
  const y = b.digits * 10n ** BigInt(scale - b.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Sign of a × b − c × d, for decimal strings. */
export function compareProducts(a: string, b: string, c: string, d: string): number {
  return compareScaled(product(parse(a), parse(b)), product(parse(c), parse(d)));
}

/** Sign of a − b, for decimal strings. */
export function compareDecimals(a: string, b: string): number {
  return compareScaled(parse(a), parse(b));
}
