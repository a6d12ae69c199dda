import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JunctionError } from '../../../src/core/errors.ts';
import { KeyRateLimiter } from '../../../src/pipeline/rate-limiter.ts';

/** Without Redis: the windows are in the process and answered without a promise. */
describe('KeyRateLimiter in process', () => {
  // The windows read Date.now(): the test moves it, so no figure depends on how fast the machine runs.
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('admits rpm requests a minute, then refuses with Retry-After and the rate headers', async () => {
    const limiter = new KeyRateLimiter(undefined);
    expect(limiter.inProcess).toBe(true);
    expect(limiter.consumeInProcess('key-1', 3)).toMatchObject({ limit: 3, remaining: 2 });
    // The awaited form counts in the same window.
    expect(await limiter.consume('key-1', 3)).toMatchObject({ limit: 3, remaining: 1 });
    const third = limiter.consumeInProcess('key-1', 3);
    expect(third?.remaining).toBe(0);
    expect(third?.resetMs).toBe(60_000);
    const refused = (() => {
      try {
        limiter.consumeInProcess('key-1', 3);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(JunctionError);
    expect((refused as JunctionError).code).toBe('rate_limit_exceeded');
    expect((refused as JunctionError).headers).toMatchObject({ 'retry-after': '60', 'x-ratelimit-limit-requests': '3', 'x-ratelimit-remaining-requests': '0' });
    await expect(limiter.consume('key-1', 3)).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
    // Another key, and the same key under a changed limit, count from zero.
    expect(limiter.consumeInProcess('key-2', 3)?.remaining).toBe(2);
    expect(limiter.consumeInProcess('key-1', 5)?.remaining).toBe(4);
  });

  it('opens a new window a minute after the first request of the last one', () => {
    const limiter = new KeyRateLimiter(undefined);
    limiter.consumeInProcess('key-1', 1);
    vi.advanceTimersByTime(59_000);
    expect(() => limiter.consumeInProcess('key-1', 1)).toThrow(JunctionError);
    vi.advanceTimersByTime(1_000);
    expect(limiter.consumeInProcess('key-1', 1)).toMatchObject({ remaining: 0, resetMs: 60_000 });
  });

  it('counts nothing for a key without a limit', () => {
    const limiter = new KeyRateLimiter(undefined);
    expect(limiter.consumeInProcess('key-1', null)).toBeUndefined();
  });
});
