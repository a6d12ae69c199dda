import { describe, expect, it } from 'vitest';
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

describe('statement watchdog', () => {
  it('fails a statement stalled on a server that no longer answers as an outage', async () => {
    const { watchdog } = watchdogAnswering('silent');
    const never = new Promise<string>(() => undefined);
    const started = performance.now();
    const error = await watchdog.watch(never).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(databaseOutageOf(error)).toBe('unreachable');
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('lets a long statement run on while the server answers its probes', async () => {
    const { watchdog, probes } = watchdogAnswering('alive');
    await expect(watchdog.watch(later(200, 'done'))).resolves.toBe('done');
    expect(probes()).toBeGreaterThan(0);
  });

  it('probes nothing for statements that end before they stall, and passes their errors through', async () => {
    const { watchdog, probes } = watchdogAnswering('silent');
    await expect(watchdog.watch(later(5, 'quick'))).resolves.toBe('quick');
    const refused = Object.assign(new Error('duplicate key'), { code: '23505' });
    await expect(watchdog.watch(Promise.reject(refused))).rejects.toBe(refused);
    await later(80, undefined);
    expect(probes()).toBe(0);
  });
});
