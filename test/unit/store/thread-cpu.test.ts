import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownThreadCpuFile, threadCpuSeconds } from '../../../src/store/thread-cpu.ts';

/** A thread's own CPU time, as the metrics read the embedded engine's (Linux, where the tests run). */
const scratch = mkdtempSync(join(tmpdir(), 'thread-cpu-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Spins this thread for `ms` of wall time. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('thread CPU time', () => {
  it("names this thread's own file and counts the time it spends on a CPU", () => {
    const file = ownThreadCpuFile();
    expect(file).toMatch(new RegExp(`^/proc/${process.pid}/task/\\d+/schedstat$`));
    const before = threadCpuSeconds(file as string) as number;
    const wallBefore = performance.now();
    spin(150);
    const after = threadCpuSeconds(file as string) as number;
    // Never more than the wall time that passed; most of it unless the machine took the CPU away.
    expect(after - before).toBeGreaterThan(0.03);
    expect(after - before).toBeLessThanOrEqual((performance.now() - wallBefore) / 1000 + 0.01);
  });

  it('answers undefined for a thread that is gone or a file that is not a CPU counter', () => {
    expect(threadCpuSeconds(`/proc/${process.pid}/task/999999999/schedstat`)).toBeUndefined();
    const garbage = join(scratch, 'schedstat');
    writeFileSync(garbage, 'not-a-number 0 0\n');
    expect(threadCpuSeconds(garbage)).toBeUndefined();
    writeFileSync(garbage, '12345');
    expect(threadCpuSeconds(garbage)).toBeUndefined();
    writeFileSync(garbage, '2500000000 17 3\n');
    expect(threadCpuSeconds(garbage)).toBe(2.5);
  });
});
