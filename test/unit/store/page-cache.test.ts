import { describe, expect, it } from 'vitest';
import { PAGE_BYTES, PageCache } from '../../../src/store/page-cache.ts';

/** A page whose every byte is `fill` (mod 256). */
const page = (fill: number) => new Uint8Array(PAGE_BYTES).fill(fill % 256);
const firstByte = (content: Uint8Array | undefined) => content?.[0];

describe('the page cache', () => {
  it('answers a page it was given with a copy, not the buffer it was given', () => {
    const cache = new PageCache(16 * PAGE_BYTES);
    const given = page(7);
    cache.put(1, 0, given);
    given.fill(9);
    const cached = cache.get(1, 0);
    expect(cached?.length).toBe(PAGE_BYTES);
    expect(cached?.every((byte) => byte === 7)).toBe(true);
    expect(cache.get(1, 1)).toBeUndefined();
    expect(cache.get(2, 0)).toBeUndefined();
    expect([cache.has(1, 0), cache.has(1, 1)]).toEqual([true, false]);
  });

  it('keeps files apart, whatever their page numbers', () => {
    const cache = new PageCache(16 * PAGE_BYTES);
    cache.put(1, 5, page(1));
    cache.put(2, 5, page(2));
    cache.put(1, 131_071, page(3));
    expect([firstByte(cache.get(1, 5)), firstByte(cache.get(2, 5)), firstByte(cache.get(1, 131_071))]).toEqual([1, 2, 3]);
  });

  it('evicts the least recently used page when full, and reuses its memory for the new one', () => {
    const cache = new PageCache(3 * PAGE_BYTES);
    cache.put(1, 0, page(10));
    cache.put(1, 1, page(11));
    cache.put(1, 2, page(12));
    cache.get(1, 0); // now the most recent
    cache.put(1, 3, page(13)); // evicts page 1
    expect(cache.size).toBe(3);
    expect(cache.get(1, 1)).toBeUndefined();
    expect([firstByte(cache.get(1, 0)), firstByte(cache.get(1, 2)), firstByte(cache.get(1, 3))]).toEqual([10, 12, 13]);
    // Many more pages than slots: every page held is still its own content.
    for (let number = 100; number < 400; number += 1) cache.put(4, number, page(number));
    expect(cache.size).toBe(3);
    expect([397, 398, 399].map((number) => firstByte(cache.get(4, number)))).toEqual([397 % 256, 398 % 256, 399 % 256]);
  });

  it('forgets the pages a write covers, and a truncated file’s pages from its new end on', () => {
    const cache = new PageCache(64 * PAGE_BYTES);
    for (let number = 0; number < 10; number += 1) cache.put(1, number, page(number));
    cache.put(2, 3, page(99));
    cache.drop(1, 2, 3);
    expect([0, 1, 2, 3, 4].map((number) => firstByte(cache.get(1, number)))).toEqual([0, 1, undefined, undefined, 4]);
    cache.dropFrom(1, 7);
    expect([6, 7, 8, 9].map((number) => firstByte(cache.get(1, number)))).toEqual([6, undefined, undefined, undefined]);
    expect(firstByte(cache.get(2, 3))).toBe(99);
    cache.dropFrom(1, 0);
    expect(cache.size).toBe(1);
    // Freed slots take new pages.
    for (let number = 0; number < 20; number += 1) cache.put(3, number, page(number + 50));
    expect(cache.size).toBe(21);
    expect(firstByte(cache.get(3, 19))).toBe(69);
  });

  it('holds nothing when its size is 0', () => {
    const cache = new PageCache(0);
    expect(cache.enabled).toBe(false);
    cache.put(1, 0, page(1));
    expect(cache.get(1, 0)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
