import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DatabaseUnavailableError, databaseOutageOf } from '../../../src/store/connection-errors.ts';
import { type ServerLiveness, StatementWatchdog } from '../../../src/store/statement-watchdog.ts';

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

function watchdogAnswering(liveness: ServerLiveness): { watchdog: StatementWatchdog; probes: () => number } {
  let probes = 0;
  const watchdog = new StatementWatchdog({
    stallMs: 50,
    checkEveryMs: 10,
    probe: async () => {
      probes += 1;
      return liveness;
    },
  });
  return { watchdog, probes: () => probes };
}

// The watchdog's clock and its check interval, driven by the test: no assertion waits on the machine's speed.
beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] }));
afterEach(() => vi.useRealTimers());

describe('statement watchdog', () => {
  it('fails a statement stalled on a server that no longer answers as an outage, once it has stalled', async () => {
    const { watchdog, probes } = watchdogAnswering('silent');
    let outcome: unknown;
    void watchdog.watch(new Promise<string>(() => undefined)).catch((failure: unknown) => (outcome = failure));
    await vi.advanceTimersByTimeAsync(40);
    expect(outcome).toBeUndefined();
    expect(probes()).toBe(0);
    await vi.advanceTimersByTimeAsync(20);
    expect(outcome).toBeInstanceOf(DatabaseUnavailableError);
    expect(databaseOutageOf(outcome)).toBe('unreachable');
  });

  it('lets a long statement run on while the server answers its probes', async () => {
    const { watchdog, probes } = watchdogAnswering('alive');
    const result = watchdog.watch(later(200, 'done'));
    await vi.advanceTimersByTimeAsync(200);
    await expect(result).resolves.toBe('done');
    expect(probes()).toBeGreaterThan(0);
  });

  it('probes nothing for statements that end before they stall, and passes their errors through', async () => {
    const { watchdog, probes } = watchdogAnswering('silent');
    const quick = watchdog.watch(later(5, 'quick'));
    await vi.advanceTimersByTimeAsync(5);
    await expect(quick).resolves.toBe('quick');
    const refused = Object.assign(new Error('duplicate key'), { code: '23505' });
    await expect(watchdog.watch(Promise.reject(refused))).rejects.toBe(refused);
    await vi.advanceTimersByTimeAsync(80);
    expect(probes()).toBe(0);
  });
});
