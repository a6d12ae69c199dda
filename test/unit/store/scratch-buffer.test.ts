import { describe, expect, it } from 'vitest';
import { ScratchBuffer } from '../../../src/store/scratch-buffer.ts';

/**
 * The kept buffer of src/store/scratch-buffer.ts: the same memory for every write that fits,
 * growth by at least doubling up to the limit, and a buffer of its own for a write past it,
 * which leaves the kept one as it was.
 */
describe('a scratch buffer', () => {
  it('hands out the same memory while writes fit, and grows by at least doubling, up to its limit', () => {
    const scratch = new ScratchBuffer(1024, 10_000);
    const first = scratch.atLeast(100);
    expect(first.byteLength).toBe(1024);
    expect(scratch.atLeast(1024)).toBe(first);

    const grown = scratch.atLeast(1025);
    expect(grown).not.toBe(first);
    expect(grown.byteLength).toBe(2048);
    expect(scratch.atLeast(5_000).byteLength).toBe(5_000);
    // Doubling 5,000 would pass the limit: it stops there.
    const largest = scratch.atLeast(6_000);
    expect(largest.byteLength).toBe(10_000);
    expect(scratch.atLeast(10_000)).toBe(largest);
  });

  it('gives a write past the limit a buffer of its own and keeps the one it had', () => {
    const scratch = new ScratchBuffer(1024, 4096);
    const kept = scratch.atLeast(2000);
    const large = scratch.atLeast(50_000);
    expect(large.byteLength).toBe(50_000);
    expect(large.buffer).not.toBe(kept.buffer);
    expect(scratch.atLeast(10)).toBe(kept);
  });
});
