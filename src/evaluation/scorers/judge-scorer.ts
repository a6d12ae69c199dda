import { z } from 'zod';
import type { ModelMessage, ResponseFormat } from '../../core/model-types.ts';
import type { CaseRun, ScoredCase, ScoreResult } from './case-run.ts';
import { JUDGE_RESPONSE_SCHEMA, judgeMessages } from './judge-prompt.ts';

/** One model call for a judge, through the gateway's pipeline (billed and logged as the evaluation's). */
export type JudgeCall = (request: { model: string; messages: ModelMessage[]; responseFormat: ResponseFormat }) => Promise<{ text: string; costMicros: number }>;

export const JudgeVerdictSchema = z.object({ score: z.number().min(0).max(1), reason: z.string().max(4_000) });

type Verdict = Omit<ScoreResult, 'scorer' | 'type'> & { costMicros: number };

const RESPONSE_FORMAT: ResponseFormat = { type: 'json_schema', name: 'judge_verdict', schema: { ...JUDGE_RESPONSE_SCHEMA }, strict: true };

/**
 * A model judges the whole run against the rubric. Its answer must be the verdict's JSON (a
 * fenced block is accepted); anything else is this scorer's error on this case, never the
 * evaluation's: the other scorers and cases go on.
 */
export async function scoreWithJudge(call: JudgeCall, judge: { rubric: string; model: string }, run: CaseRun, testCase: ScoredCase): Promise<Verdict> {
  let answer: { text: string; costMicros: number };
  try {
    answer = await call({ model: judge.model, messages: judgeMessages(judge.rubric, run, testCase.reference), responseFormat: RESPONSE_FORMAT });
  } catch (error) {
    return { score: null, reason: `the judge model could not be called: ${(error as Error).message}`, error: 'judge_failed', costMicros: 0 };
  }
  const verdict = parseVerdict(answer.text);
  if (!verdict) return { score: null, reason: `the judge did not answer with a score and a reason: ${answer.text.slice(0, 200)}`, error: 'judge_malformed', costMicros: answer.costMicros };
  return { score: verdict.score, reason: verdict.reason, costMicros: answer.costMicros };
}

function parseVerdict(text: string): z.infer<typeof JudgeVerdictSchema> | undefined {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n\s*```/.exec(text)?.[1];
  let value: unknown;
  try {
    value = JSON.parse(fenced ?? text) as unknown;
  } catch {
    return undefined;
  }
  const parsed = JudgeVerdictSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
