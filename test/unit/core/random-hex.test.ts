import { describe, expect, it } from 'vitest';
import { randomHex } from '../../../src/core/random-hex.ts';

describe('randomHex', () => {
  it('gives distinct ids of the asked length across many refills of its pool', () => {
    const seen = new Set<string>();
    // 20,000 × 24 bytes: over a hundred refills of the 4 KB pool, with ids straddling none.
    for (let index = 0; index < 20_000; index += 1) {
      const id = randomHex(24);
      expect(id).toMatch(/^[0-9a-f]{48}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(20_000);
  });

  it('mixes sizes without handing out the same bytes twice', () => {
    const ids = Array.from({ length: 5_000 }, (_, index) => randomHex([12, 16, 24][index % 3] as number));
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit turns up in roughly equal measure (a stuck or zero pool would not).
    const counts = new Map<string, number>();
    for (const digit of ids.join('')) counts.set(digit, (counts.get(digit) ?? 0) + 1);
    expect(counts.size).toBe(16);
    const total = ids.join('').length;
    for (const count of counts.values()) expect(Math.abs(count / total - 1 / 16)).toBeLessThan(0.01);
  });
});
