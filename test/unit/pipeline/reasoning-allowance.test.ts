import { describe, expect, it } from 'vitest';
import { thinkingBudgetFor, maxTokensFor } from '../../../src/providers/anthropic/convert-messages-request.ts';
import { reasoningAllowance } from '../../../src/pipeline/chat-pipeline.ts';

describe('the thinking allowance a capped call reserves', () => {
  it('covers what the Anthropic adapter may send above the cap, for every setting', () => {
    const settings = [
      undefined,
      { enabled: false },
      { enabled: true },
      { budgetTokens: 500 },
      { budgetTokens: 20_000 },
      ...(['minimal', 'low', 'medium', 'high'] as const).map((effort) => ({ effort })),
    ];
    for (const reasoning of settings) {
      for (const cap of [1, 100, 5_000, 30_000]) {
        const sent = maxTokensFor(cap, thinkingBudgetFor(reasoning));
        expect(sent, JSON.stringify({ reasoning, cap })).toBeLessThanOrEqual(cap + reasoningAllowance(reasoning));
      }
    }
  });

  it('is zero when reasoning is off', () => {
    expect(reasoningAllowance(undefined)).toBe(0);
    expect(reasoningAllowance({ enabled: false, effort: 'high' })).toBe(0);
  });
});
