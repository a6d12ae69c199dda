/**
 * Fixed one-minute-style windows per key, counted in this process: what
 * rate-limiter-flexible's RateLimiterMemory does (a window opens at a key's first hit
 * and lasts `durationMs`; every hit counts, refused ones too), but answered without a
 * promise, so a request that is under its limit pays no await for it. Windows that ended
 * are swept at most once per `durationMs`, on a hit, rather than each holding a timer.
 */
export type WindowCount = { count: number; msLeft: number };

type Window = { count: number; endsAt: number };

export class RateWindows {
  readonly #durationMs: number;
  readonly #windows = new Map<string, Window>();
  #nextSweepAt = 0;

  constructor(durationMs: number) {
    this.#durationMs = durationMs;
  }

  /** Counts one hit for `key` at `now` and returns the window's count so far and its time left. */
  hit(key: string, now: number): WindowCount {
    if (now >= this.#nextSweepAt) this.#sweep(now);
    let window = this.#windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + this.#durationMs };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, msLeft: window.endsAt - now };
  }

  /** Windows held (for tests: ended ones go at the next sweep). */
  get size(): number {
    return this.#windows.size;
  }

  #sweep(now: number): void {
    this.#nextSweepAt = now + this.#durationMs;
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
  }
}
