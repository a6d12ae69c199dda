import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { ownThreadCpuFile, threadCpuSeconds } from '../../../src/store/thread-cpu.ts';

/** A thread's own CPU time, as the metrics read the embedded engine's (Linux, where the tests run). */
const scratch = mkdtempSync(join(tmpdir(), 'thread-cpu-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Spins this thread until its counter shows `seconds` more CPU time (a busy machine only makes that take longer). */
function spinFor(file: string, seconds: number): number {
  const before = threadCpuSeconds(file) as number;
  const gaveUpAt = performance.now() + 10_000;
  let now = before;
  // The wall-time cap only ends a hang if the counter never moves; the assertion then fails.
  while (now - before < seconds && performance.now() < gaveUpAt) {
    for (let turn = 0; turn < 100_000; turn += 1);
    now = threadCpuSeconds(file) as number;
  }
  return now;
}

describe('thread CPU time', () => {
  it("names this thread's own file and counts the time it spends on a CPU", () => {
    const file = ownThreadCpuFile();
    expect(file).toMatch(new RegExp(`^/proc/${process.pid}/task/\\d+/schedstat$`));
    const before = threadCpuSeconds(file as string) as number;
    const after = spinFor(file as string, 0.05);
    expect(after - before).toBeGreaterThanOrEqual(0.05);
  });

  it("is read from another thread, as the embedded engine's is: it moves with that thread's work, not the reader's", async () => {
    const engine = new Worker(new URL('../../fixtures/thread-cpu/spinning-thread.mjs', import.meta.url));
    try {
      const [{ file }] = (await once(engine, 'message')) as [{ file: string }];
      const reader = ownThreadCpuFile() as string;
      expect(file).not.toBe(reader);
      const engineBefore = threadCpuSeconds(file) as number;
      const readerBefore = threadCpuSeconds(reader) as number;
      engine.postMessage(300_000_000);
      await once(engine, 'message');
      const engineSpent = (threadCpuSeconds(file) as number) - engineBefore;
      const readerSpent = (threadCpuSeconds(reader) as number) - readerBefore;
      // The reader only waited for the message: the work shows on the engine thread's counter alone.
      expect(engineSpent).toBeGreaterThan(0.05);
      expect(readerSpent).toBeLessThan(engineSpent / 4);
    } finally {
      await engine.terminate();
    }
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
