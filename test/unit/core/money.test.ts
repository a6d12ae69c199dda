import { describe, expect, it } from 'vitest';
import { microsToUsd, usdToMicros } from '../../../src/core/money.ts';

describe('USD amounts', () => {
  it('convert exactly to integer micro-USD', () => {
    expect(usdToMicros(5)).toBe(5_000_000);
    expect(usdToMicros('12.345678')).toBe(12_345_678);
    expect(usdToMicros(0.1)).toBe(100_000);
    expect(usdToMicros(0.000001)).toBe(1);
    expect(microsToUsd(12_345_678)).toBe(12.345678);
  });

  it('refuse more than six decimals, negatives and non-numbers instead of rounding', () => {
    for (const bad of [0.0000001, '1.1234567', -1, '-1', 'abc', Number.NaN]) expect(() => usdToMicros(bad)).toThrow(RangeError);
  });
});
