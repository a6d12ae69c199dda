import { isDeepStrictEqual } from 'node:util';
import type { ToolCallExpectation } from '../case-expectations.ts';
import { type CaseRun, type ScoredCase, type ScoreResult, toolCallsOf } from './case-run.ts';
import { TIMED_OUT, withinTimeLimit } from './time-limited.ts';

type Verdict = Omit<ScoreResult, 'scorer' | 'type'>;

/** The share of expected tool calls the run made: by name, with arguments holding the expected fields or matching the pattern. */
export function scoreToolCalls(run: CaseRun, testCase: ScoredCase): Verdict {
  const expected = testCase.expect?.tool_calls ?? [];
  if (expected.length === 0) return { score: null, reason: 'the case expects no tool calls' };
  const calls = toolCallsOf(run.transcript);
  const unmet: string[] = [];
  for (const expectation of expected) {
    const met = calls.some((call) => call.name === expectation.name && argumentsMatch(expectation.arguments, call.arguments));
    if (!met) unmet.push(describe(expectation, calls));
  }
  const score = (expected.length - unmet.length) / expected.length;
  return { score, reason: unmet.length === 0 ? `called ${expected.map((call) => call.name).join(', ')} as expected` : unmet.join('; ') };
}

function argumentsMatch(expected: ToolCallExpectation['arguments'], actualText: string): boolean {
  if (expected === undefined) return true;
  if ('regex' in expected && typeof expected.regex === 'string' && Object.keys(expected).length === 1) {
    const pattern = new RegExp(expected.regex, 'u');
    const matched = withinTimeLimit(() => pattern.test(actualText));
    return matched !== TIMED_OUT && matched;
  }
  let actual: unknown;
  try {
    actual = JSON.parse(actualText) as unknown;
  } catch {
    return false;
  }
  return holds(actual, expected);
}

/** Every field of `expected` is in `actual` with an equal value (objects compared the same way, field by field). */
function holds(actual: unknown, expected: unknown): boolean {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return false;
    return Object.entries(expected).every(([key, value]) => Object.hasOwn(actual, key) && holds(actual[key], value));
  }
  return isDeepStrictEqual(actual, expected);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function describe(expectation: ToolCallExpectation, calls: Array<{ name: string; arguments: string }>): string {
  const byName = calls.filter((call) => call.name === expectation.name);
  if (byName.length === 0) return `no call of ${expectation.name}${calls.length > 0 ? ` (called ${[...new Set(calls.map((call) => call.name))].join(', ')})` : ''}`;
  return `${expectation.name} was called with other arguments: ${byName[0]?.arguments.slice(0, 200) ?? ''}`;
}
