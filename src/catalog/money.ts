/**
 * Exact decimal money helpers. Published prices arrive as JS numbers (USD, e.g.
 * 0.075) and config prices as YAML numbers or strings; converting with `* 1e6`
 * would inherit binary floating-point error, so we go through the number's shortest
 * decimal text instead and do all arithmetic in BigInt.
 */

const DECIMAL = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

export type ScaledDecimal = { value: bigint; exact: boolean };

/**
 * `value × 10^scaleDigits` as an integer, rounded UP when the decimal has more
 * digits than the scale keeps (`exact` tells which). Throws on negatives, NaN and
 * anything that is not a plain decimal.
 */
export const scaleDecimal = (value: number | string, scaleDigits: number): ScaledDecimal => {
  const text = typeof value === 'number' ? numberToDecimalText(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`not a non-negative decimal: ${String(value)}`);
  const integerDigits = match[1] ?? '0';
  const fractionDigits = match[2] ?? '';
  const exponent = Number(match[3] ?? '0');
  const digits = BigInt(integerDigits + fractionDigits);
  const shift = exponent - fractionDigits.length + scaleDigits;
  if (shift >= 0) return { value: digits * 10n ** BigInt(shift), exact: true };
  const divisor = 10n ** BigInt(-shift);
  return { value: ceilDiv(digits, divisor), exact: digits % divisor === 0n };
};

const numberToDecimalText = (value: number): string => {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`not a non-negative finite number: ${value}`);
  // String() gives the shortest text that round-trips, e.g. "0.075" or "1e-7".
  return String(value);
};

/** Ceiling of a / b for a ≥ 0, b > 0. */
export const ceilDiv = (numerator: bigint, denominator: bigint): bigint => (numerator + denominator - 1n) / denominator;

/** A BigInt that is known to fit a JS number (micro-USD amounts in practice). */
export const toSafeNumber = (value: bigint): number => {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount too large: ${value}`);
  return Number(value);
};

/**
 * Exact decimal text of `amount / 10^scaleDigits`, trailing zeros trimmed:
 * `formatScaled(150_000n, 12)` → `"0.00000015"` (150,000 µUSD per million tokens
 * as USD per token).
 */
export const formatScaled = (amount: bigint, scaleDigits: number): string => {
  const negative = amount < 0n;
  const magnitude = negative ? -amount : amount;
  const divisor = 10n ** BigInt(scaleDigits);
  const integerPart = (magnitude / divisor).toString();
  const fractionPart = (magnitude % divisor).toString().padStart(scaleDigits, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${integerPart}${fractionPart ? `.${fractionPart}` : ''}`;
};
