import type { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import { usdToMicros } from '../core/money.ts';
import { getEvaluation, listResults } from '../evaluation/evaluation-repository.ts';
import type { EvaluationService } from '../evaluation/evaluation-service.ts';
import { type ExperimentSide, readExperiment, startExperiment } from '../evaluation/experiment-service.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import type { Database } from '../store/database.ts';
import type { EvaluationDetail, EvaluationView, ExperimentSideSchema, ExperimentView, StartEvaluation, StartExperimentSchema } from './contract/evaluations.ts';
import { evaluationDetail, evaluationView, experimentView } from './evaluation-views.ts';

/** Who starts: the account, how the evaluation records them, and the key its runs are billed to (an agent key), if any. */
export type Starter = { accountId: string; createdBy: string; key?: ApiKeyRecord };

const notFound = (what: string, id: string) => new JunctionError('not_found', `No ${what} '${id.slice(0, 64)}' in this account.`);
const toSide = (side: z.infer<typeof ExperimentSideSchema>): ExperimentSide => ('version' in side ? { version: side.version } : { evaluationId: side.evaluation_id });

const runOptions = (body: { scorers?: unknown[] | undefined; concurrency?: number | undefined; max_cost_usd?: number | undefined }) => ({
  ...(body.scorers !== undefined && { scorers: body.scorers }),
  ...(body.concurrency !== undefined && { concurrency: body.concurrency }),
  ...(body.max_cost_usd !== undefined && { maxCostMicros: usdToMicros(body.max_cost_usd) }),
});

/**
 * What the console's routes and the Agents API's do with evaluations and experiments, in
 * one place: the two differ only in who the caller is and which key pays.
 */
export function evaluationActions(db: Database, evaluations: EvaluationService) {
  return {
    async startEvaluation(starter: Starter, body: StartEvaluation): Promise<EvaluationView> {
      const run = await evaluations.start({
        accountId: starter.accountId,
        agentId: body.agent,
        dataset: body.dataset,
        ...(body.version !== undefined && { version: body.version }),
        ...runOptions(body),
        createdBy: starter.createdBy,
        ...(starter.key && { key: starter.key }),
      });
      return evaluationView(run, []);
    },

    async readEvaluation(accountId: string, id: string): Promise<EvaluationDetail> {
      const run = await getEvaluation(db, accountId, id);
      if (!run) throw notFound('evaluation', id);
      return evaluationDetail(run, await listResults(db, accountId, id));
    },

    /** Cancels the evaluation if it runs; an evaluation that has ended is answered as it is. */
    async cancelEvaluation(accountId: string, id: string): Promise<EvaluationDetail> {
      const run = await evaluations.cancel(accountId, id);
      if (!run) throw notFound('evaluation', id);
      return evaluationDetail(run, await listResults(db, accountId, id));
    },

    async startExperiment(starter: Starter, body: z.output<typeof StartExperimentSchema>): Promise<ExperimentView> {
      const state = await startExperiment(db, evaluations, {
        accountId: starter.accountId,
        agentId: body.agent,
        dataset: body.dataset,
        baseline: toSide(body.baseline),
        candidate: toSide(body.candidate),
        ...runOptions(body),
        createdBy: starter.createdBy,
        ...(starter.key && { key: starter.key }),
      });
      return experimentView(state);
    },

    async readExperiment(accountId: string, id: string): Promise<ExperimentView> {
      const state = await readExperiment(db, accountId, id);
      if (!state) throw notFound('experiment', id);
      return experimentView(state);
    },
  };
}
