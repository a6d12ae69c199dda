import { describe, expect, it } from 'vitest';
import { ScorerListSchema, type ScorerDeclarationInput } from '../../../src/agents/scorer-declarations.ts';
import { buildScorers, caseScore } from '../../../src/evaluation/scorers/build-scorers.ts';
import type { CaseRun, ScoredCase } from '../../../src/evaluation/scorers/case-run.ts';
import type { JudgeCall } from '../../../src/evaluation/scorers/judge-scorer.ts';

const run = (answer: string, extra: Partial<CaseRun> = {}): CaseRun => ({
  answer,
  transcript: [
    { kind: 'input', role: 'user', text: 'question' },
    { kind: 'answer', text: answer },
  ],
  latencyMs: 100,
  costMicros: 500,
  ...extra,
});
const testCase = (fields: Partial<ScoredCase> = {}): ScoredCase => ({ reference: null, expect: null, ...fields });

async function score(declaration: ScorerDeclarationInput, caseRun: CaseRun, scored: ScoredCase, judge?: JudgeCall) {
  const [scorer] = buildScorers(ScorerListSchema.parse([declaration]), { defaultJudgeModel: 'openai/test-judge', ...(judge && { judge }) });
  if (!scorer) throw new Error('no scorer');
  return scorer.score(caseRun, scored);
}

describe('text scorers', () => {
  it('exact compares with the reference, ignoring case and outer spaces unless told', async () => {
    expect((await score({ type: 'exact' }, run(' Paris '), testCase({ reference: 'paris' }))).result.score).toBe(1);
    expect((await score({ type: 'exact', case_sensitive: true }, run('Paris'), testCase({ reference: 'paris' }))).result.score).toBe(0);
    expect((await score({ type: 'exact' }, run('Paris'), testCase())).result).toMatchObject({ score: null, reason: 'the case has no reference answer' });
  });

  it('contains scores the share of texts held and forbidden texts left out', async () => {
    const scored = testCase({ expect: { must_contain: ['refund', 'days'], must_not_contain: ['sorry'] } });
    expect((await score({ type: 'contains' }, run('A refund takes 5 days.'), scored)).result.score).toBe(1);
    const partial = await score({ type: 'contains' }, run('Sorry, a REFUND is possible.'), scored);
    expect(partial.result.score).toBeCloseTo(1 / 3);
    expect(partial.result.reason).toBe('missing "days"; mentions "sorry"');
    expect((await score({ type: 'contains', value: 'Paris' }, run('It is paris.'), testCase())).result.score).toBe(1);
    expect((await score({ type: 'contains' }, run('x'), testCase())).result.score).toBeNull();
  });

  it('regex matches the declared pattern or the case’s', async () => {
    expect((await score({ type: 'regex', pattern: '^\\d+ days$' }, run('5 days'), testCase())).result.score).toBe(1);
    expect((await score({ type: 'regex' }, run('five days'), testCase({ expect: { regex: '\\d' } }))).result.score).toBe(0);
  });

  it('stops a pattern that backtracks without end and reports it as the scorer’s error', async () => {
    const outcome = await score({ type: 'regex', pattern: '^(a+)+$' }, run(`${'a'.repeat(40)}!`), testCase());
    expect(outcome.result).toMatchObject({ score: null, error: 'pattern_timeout' });
  });

  it('refuses a declaration that is not a valid pattern', () => {
    expect(ScorerListSchema.safeParse([{ type: 'regex', pattern: '(' }]).success).toBe(false);
    expect(ScorerListSchema.safeParse([{ type: 'contains' }, { type: 'contains' }]).success).toBe(false);
    expect(ScorerListSchema.safeParse([{ type: 'contains' }, { type: 'contains', name: 'second' }]).success).toBe(true);
  });
});

describe('JSON schema scorer', () => {
  const schema = { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] };
  it('validates the answer, also inside a fenced block', async () => {
    expect((await score({ type: 'json_schema', schema }, run('{"amount": 5}'), testCase())).result.score).toBe(1);
    expect((await score({ type: 'json_schema' }, run('```json\n{"amount": 5}\n```'), testCase({ expect: { json_schema: schema } }))).result.score).toBe(1);
    const wrong = await score({ type: 'json_schema', schema }, run('{"amount": "five"}'), testCase());
    expect(wrong.result).toMatchObject({ score: 0, reason: '/amount must be number' });
    expect((await score({ type: 'json_schema', schema }, run('five'), testCase())).result).toMatchObject({ score: 0, reason: 'the answer is not JSON' });
  });

  it('reports a schema that does not compile as the scorer’s error', async () => {
    const outcome = await score({ type: 'json_schema', schema: { type: 'no-such-type' } }, run('{}'), testCase());
    expect(outcome.result).toMatchObject({ score: null, error: 'invalid_schema' });
  });
});

describe('tool-call scorer', () => {
  const withCalls = run('Done.', {
    transcript: [
      { kind: 'input', role: 'user', text: 'refund order 7' },
      { kind: 'tool-call', name: 'lookup_order', arguments: '{"id":7,"options":{"deep":true,"page":1}}' },
      { kind: 'tool-result', name: 'lookup_order', ok: true, output: '{"status":"paid"}' },
      { kind: 'tool-call', name: 'refund', arguments: '{"order":7,"amount":12.5}' },
      { kind: 'answer', text: 'Done.' },
    ],
  });

  it('matches calls by name and by a subset of their arguments', async () => {
    const scored = testCase({
      expect: {
        tool_calls: [
          { name: 'lookup_order', arguments: { options: { deep: true } } },
          { name: 'refund', arguments: { order: 7 } },
        ],
      },
    });
    expect((await score({ type: 'tool_calls' }, withCalls, scored)).result).toMatchObject({ score: 1 });
  });

  it('matches arguments by a pattern, and names what is missing', async () => {
    const scored = testCase({ expect: { tool_calls: [{ name: 'refund', arguments: { regex: '"amount":12\\.5' } }, { name: 'escalate' }, { name: 'lookup_order', arguments: { id: 8 } }] } });
    const outcome = await score({ type: 'tool_calls' }, withCalls, scored);
    expect(outcome.result.score).toBeCloseTo(1 / 3);
    expect(outcome.result.reason).toContain('no call of escalate (called lookup_order, refund)');
    expect(outcome.result.reason).toContain('lookup_order was called with other arguments');
  });
});

describe('citation scorer', () => {
  const retrieved = run('See the refund policy (refunds.md).', {
    transcript: [
      {
        kind: 'retrieval',
        query: 'refund',
        hits: [
          { source: 'handbook/refunds.md', title: 'Refund policy' },
          { source: 'handbook/shipping.md', title: null },
        ],
      },
      { kind: 'answer', text: 'See the refund policy (refunds.md).' },
    ],
  });
  it('needs each document retrieved and named in the answer', async () => {
    expect((await score({ type: 'cites' }, retrieved, testCase({ expect: { cites: ['refunds'] } }))).result.score).toBe(1);
    const outcome = await score({ type: 'cites' }, retrieved, testCase({ expect: { cites: ['shipping.md', 'returns'] } }));
    expect(outcome.result).toMatchObject({ score: 0, reason: 'shipping.md was retrieved but not cited; returns was not retrieved' });
  });
});

describe('latency and cost scorers', () => {
  it('pass within the threshold and fail over it', async () => {
    expect((await score({ type: 'latency', max_ms: 100 }, run('x'), testCase())).result.score).toBe(1);
    expect((await score({ type: 'latency', max_ms: 99 }, run('x'), testCase())).result.score).toBe(0);
    expect((await score({ type: 'cost', max_usd: 0.0005 }, run('x'), testCase())).result.score).toBe(1);
    expect((await score({ type: 'cost', max_usd: 0.0004 }, run('x'), testCase())).result.score).toBe(0);
  });
});

describe('model judge', () => {
  const transcript: CaseRun['transcript'] = [
    { kind: 'input', role: 'user', text: 'Can I get my money back?' },
    { kind: 'tool-call', name: 'lookup_policy', arguments: '{"topic":"refunds"}' },
    { kind: 'tool-result', name: 'lookup_policy', ok: true, output: 'Refunds within 30 days.' },
    { kind: 'answer', text: 'Yes.' },
  ];

  it('reads the whole run and returns the judge’s score, reason and cost', async () => {
    const seen: string[] = [];
    const judge: JudgeCall = async (request) => {
      seen.push(request.model, JSON.stringify(request.messages), request.responseFormat.type);
      return { text: '{"score": 0.75, "reason": "Right policy, terse answer."}', costMicros: 42 };
    };
    const outcome = await score({ type: 'judge', rubric: 'Cites the "30 days" policy.' }, run('Yes.', { transcript }), testCase({ reference: 'Yes, within 30 days.' }), judge);
    expect(outcome).toEqual({ result: { scorer: 'judge', type: 'judge', score: 0.75, reason: 'Right policy, terse answer.' }, costMicros: 42 });
    expect(seen[0]).toBe('openai/test-judge');
    // The judge sees the tool call and its result, not only the last message.
    expect(seen[1]).toContain('[tool call] lookup_policy({\\"topic\\":\\"refunds\\"})');
    expect(seen[1]).toContain('[tool result] lookup_policy returned: Refunds within 30 days.');
    expect(seen[1]).toContain('<reference_answer>');
    expect(seen[2]).toBe('json_schema');
  });

  it('takes a malformed answer as the scorer’s error on the case, keeping its cost', async () => {
    const judge: JudgeCall = async () => ({ text: 'Looks fine, 8/10.', costMicros: 7 });
    const outcome = await score({ type: 'judge', rubric: 'Polite.', name: 'polite' }, run('Yes.'), testCase(), judge);
    expect(outcome).toMatchObject({ result: { scorer: 'polite', score: null, error: 'judge_malformed' }, costMicros: 7 });
    const outOfRange = await score({ type: 'judge', rubric: 'Polite.' }, run('Yes.'), testCase(), async () => ({ text: '{"score": 8, "reason": "good"}', costMicros: 1 }));
    expect(outOfRange.result.error).toBe('judge_malformed');
  });

  it('takes a failed judge call as the scorer’s error', async () => {
    const outcome = await score({ type: 'judge', rubric: 'Polite.' }, run('Yes.'), testCase(), async () => {
      throw new Error('upstream down');
    });
    expect(outcome.result).toMatchObject({ score: null, error: 'judge_failed' });
  });
});

describe('case score', () => {
  it('is the mean of the scores that apply', () => {
    expect(
      caseScore([
        { scorer: 'a', type: 'exact', score: 1, reason: '' },
        { scorer: 'b', type: 'regex', score: null, reason: '' },
        { scorer: 'c', type: 'contains', score: 0.5, reason: '' },
      ]),
    ).toBe(0.75);
    expect(caseScore([{ scorer: 'b', type: 'regex', score: null, reason: '' }])).toBeNull();
  });
});
