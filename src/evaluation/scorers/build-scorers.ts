import { type ScorerDeclaration, scorerName } from '../../agents/scorer-declarations.ts';
import type { CaseRun, ScoredCase, Scorer, ScoreResult } from './case-run.ts';
import { scoreCites } from './cites-scorer.ts';
import { JsonSchemaChecks, scoreJsonSchema } from './json-schema-scorer.ts';
import { type JudgeCall, scoreWithJudge } from './judge-scorer.ts';
import { scoreContains, scoreExact, scoreRegex } from './text-scorers.ts';
import { scoreCost, scoreLatency } from './threshold-scorers.ts';
import { scoreToolCalls } from './tool-calls-scorer.ts';

/** What every case's own expectations ask, when neither the request nor the agent names scorers. */
export const DEFAULT_SCORERS: ScorerDeclaration[] = [{ type: 'contains' }, { type: 'regex' }, { type: 'json_schema' }, { type: 'tool_calls' }, { type: 'cites' }];

export type ScorerContext = {
  /** Calls the judge model; absent, a judge scorer reports an error on every case. */
  judge?: JudgeCall;
  /** The judge's model when a judge scorer names none: the agent's own. */
  defaultJudgeModel: string;
};

type Verdict = Omit<ScoreResult, 'scorer' | 'type'> & { costMicros?: number };

/** Scorers ready to run, one per declaration, sharing one evaluation's compiled schemas. */
export function buildScorers(declarations: readonly ScorerDeclaration[], context: ScorerContext): Scorer[] {
  const schemas = new JsonSchemaChecks();
  return declarations.map((declaration) => {
    const name = scorerName(declaration);
    const verdictOf = (run: CaseRun, testCase: ScoredCase): Verdict | Promise<Verdict> => {
      switch (declaration.type) {
        case 'exact':
          return scoreExact(declaration, run, testCase);
        case 'contains':
          return scoreContains(declaration, run, testCase);
        case 'regex':
          return scoreRegex(declaration, run, testCase);
        case 'json_schema':
          return scoreJsonSchema(schemas, declaration.schema, run, testCase);
        case 'tool_calls':
          return scoreToolCalls(run, testCase);
        case 'cites':
          return scoreCites(run, testCase);
        case 'latency':
          return scoreLatency(declaration.max_ms, run);
        case 'cost':
          return scoreCost(declaration.max_usd, run);
        case 'judge':
          if (!context.judge) return { score: null, reason: 'no judge model can be called here', error: 'judge_failed' };
          return scoreWithJudge(context.judge, { rubric: declaration.rubric, model: declaration.model ?? context.defaultJudgeModel }, run, testCase);
      }
    };
    return {
      name,
      type: declaration.type,
      async score(run, testCase) {
        let verdict: Verdict;
        try {
          verdict = await verdictOf(run, testCase);
        } catch (error) {
          // A scorer that throws fails on this case only.
          verdict = { score: null, reason: (error as Error).message, error: 'scorer_failed' };
        }
        const { costMicros = 0, ...rest } = verdict;
        return { result: { scorer: name, type: declaration.type, ...rest }, costMicros };
      },
    };
  });
}

/** A case's score: the mean of the scores its scorers gave (those that applied), or none. */
export function caseScore(results: readonly ScoreResult[]): number | null {
  const scores = results.flatMap((result) => (result.score === null ? [] : [result.score]));
  return scores.length === 0 ? null : scores.reduce((sum, score) => sum + score, 0) / scores.length;
}
