import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CostCeiling, scheduleCases } from '../../../src/evaluation/case-scheduler.ts';

/** A case runner that records how many cases ran at once, each ending a few turns of the event loop later. */
function recorder(costMicros: number) {
  const state = { running: 0, most: 0, ran: [] as number[] };
  const run = async (_case: string, position: number) => {
    state.running += 1;
    state.most = Math.max(state.most, state.running);
    await tick();
    await tick();
    state.running -= 1;
    state.ran.push(position);
    return costMicros;
  };
  return { state, run };
}

const cases = ['a', 'b', 'c', 'd', 'e'];
const open = () => new AbortController().signal;

describe('the case scheduler', () => {
  it('runs every case, at most `concurrency` at once, without a ceiling', async () => {
    const { state, run } = recorder(10);
    expect(await scheduleCases(cases, { concurrency: 2, ceiling: new CostCeiling(null, undefined), signal: open() }, run)).toBe(5);
    expect(state.most).toBe(2);
    expect([...state.ran].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('runs one case alone until a cost is known, then stops before the ceiling could be passed', async () => {
    const { state, run } = recorder(10);
    // After the first: 10 spent, 10 estimated, so one more fits under 25 and two do not; after it, none.
    expect(await scheduleCases(cases, { concurrency: 4, ceiling: new CostCeiling(25, undefined), signal: open() }, run)).toBe(2);
    expect(state.most).toBe(1);
  });

  it('starts cases at once from the agent’s own run bound, and waits for costs before going on', async () => {
    const { state, run } = recorder(10);
    // 5 estimated per case: four start at once (20 ≤ 40); then 40 spent leaves no room.
    expect(await scheduleCases(cases, { concurrency: 4, ceiling: new CostCeiling(40, 5), signal: open() }, run)).toBe(4);
    expect(state.most).toBe(4);
  });

  it('lets the cases in flight end, then reports the first failure', async () => {
    const ended: number[] = [];
    const failing = async (_case: string, position: number) => {
      await tick();
      if (position === 0) throw new Error('store down');
      await tick();
      ended.push(position);
      return 1;
    };
    await expect(scheduleCases(cases, { concurrency: 3, ceiling: new CostCeiling(null, undefined), signal: open() }, failing)).rejects.toThrow('store down');
    expect(ended).toEqual([1, 2]);
  });

  it('starts nothing more once aborted', async () => {
    const controller = new AbortController();
    const { run } = recorder(1);
    const started = scheduleCases(cases, { concurrency: 1, ceiling: new CostCeiling(null, undefined), signal: controller.signal }, async (testCase, position) => {
      controller.abort();
      return run(testCase, position);
    });
    expect(await started).toBe(1);
  });
});
