/**
 * Money is integer micro-USD. USD amounts arrive on the wire as JSON numbers or
 * decimal strings; they are converted once, exactly, by decimal string arithmetic.
 */
export const MICROS_PER_USD = 1_000_000;

/** "12.345678" | 12.345678 → 12345678. More than 6 decimals is rejected, never rounded silently. */
export function usdToMicros(value: number | string): number {
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim();
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) throw new RangeError(`not a non-negative USD amount with at most 6 decimals: ${text}`);
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').padEnd(6, '0');
  const micros = Number(whole) * MICROS_PER_USD + Number(fraction);
  if (!Number.isSafeInteger(micros)) throw new RangeError(`USD amount too large: ${text}`);
  return micros;
}

function numberToPlainString(value: number): string {
  const text = String(value);
  // Exponent notation (1e-7, 1e21) is outside what we accept anyway; spell it out so
  // the pattern check above rejects it with the real digits in the message.
  return /e/i.test(text) && Number.isFinite(value) ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}

/** 12345678 → 12.345678 (a JSON number for the wire; exact for any micro amount below 2^53). */
export const microsToUsd = (micros: number): number => micros / MICROS_PER_USD;
