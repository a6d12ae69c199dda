import { describe, expect, it } from 'vitest';
import { RateWindows } from '../../../src/pipeline/rate-windows.ts';

describe('RateWindows', () => {
  it('counts hits per key within a window that opens at the first hit', () => {
    const windows = new RateWindows(60_000);
    expect(windows.hit('a', 1_000)).toEqual({ count: 1, msLeft: 60_000 });
    expect(windows.hit('a', 31_000)).toEqual({ count: 2, msLeft: 30_000 });
    expect(windows.hit('b', 31_000)).toEqual({ count: 1, msLeft: 60_000 });
    // The window ends 60 s after its first hit, not after the last one.
    expect(windows.hit('a', 61_000)).toEqual({ count: 1, msLeft: 60_000 });
  });

  it('drops windows that ended at the next sweep, at most once per window length', () => {
    const windows = new RateWindows(1_000);
    windows.hit('a', 0);
    windows.hit('b', 500);
    expect(windows.size).toBe(2);
    // 1,200: a sweep is due (the first hit swept at 0); 'a' ended at 1,000, 'b' has not.
    windows.hit('c', 1_200);
    expect(windows.size).toBe(2);
    // 1,600: 'b' has ended but the next sweep is not due before 2,200.
    windows.hit('c', 1_600);
    expect(windows.size).toBe(2);
    windows.hit('c', 2_300);
    expect(windows.size).toBe(1);
  });
});
