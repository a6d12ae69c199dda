import { describe, expect, it } from 'vitest';
import { JunctionError } from '../../../src/core/errors.ts';
import { ACCOUNT_READ_BURST, ACCOUNT_READS_PER_SECOND, AccountReadBudgets } from '../../../src/store/reporting-reads.ts';

/** An account's reads: a burst at once, then ACCOUNT_READS_PER_SECOND, each past that waiting its turn, and a 429 beyond a 2 s wait. */
describe('account read budgets', () => {
  it('let a burst through, space the reads after it, and refuse one that would wait past 2 s', () => {
    const budgets = new AccountReadBudgets();
    const waits = Array.from({ length: ACCOUNT_READ_BURST + 20 }, () => budgets.take('a', 0));
    expect(waits.slice(0, ACCOUNT_READ_BURST)).toEqual(Array(ACCOUNT_READ_BURST).fill(0));
    // Each read after the burst waits one more share: 100 ms, 200 ms, … 2 s at 10 a second.
    expect(waits.slice(ACCOUNT_READ_BURST)).toEqual(Array.from({ length: 20 }, (_, index) => ((index + 1) * 1_000) / ACCOUNT_READS_PER_SECOND));
    let refused: unknown;
    try {
      budgets.take('a', 0);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(JunctionError);
    expect(refused).toMatchObject({ code: 'reads_rate_limited', status: 429, headers: { 'retry-after': '3' } });
    expect(budgets.refusals).toBe(1);
    // Another account has its own budget; a second later the first has ten more shares.
    expect(budgets.take('b', 0)).toBe(0);
    expect(budgets.take('a', 1_000)).toBe(1_100);
  });

  it('refill to the burst and no further', () => {
    const budgets = new AccountReadBudgets();
    for (let index = 0; index < ACCOUNT_READ_BURST; index += 1) budgets.take('a', 0);
    const later = 60_000;
    const waits = Array.from({ length: ACCOUNT_READ_BURST + 1 }, () => budgets.take('a', later));
    expect(waits.filter((wait) => wait === 0)).toHaveLength(ACCOUNT_READ_BURST);
    expect(waits.at(-1)).toBe(1_000 / ACCOUNT_READS_PER_SECOND);
  });
});
