import type { AgentDirectory, OwnedAgent } from '../agents/agent-directory.ts';
import type { AgentRuntimeDeps } from '../agents/agent-runner.ts';
import { type ScorerDeclaration, ScorerListSchema } from '../agents/scorer-declarations.ts';
import { JunctionError } from '../core/errors.ts';
import { randomHex } from '../core/random-hex.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import { systemKeyFor } from '../keys/system-key.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import type { ChatPipeline } from '../pipeline/chat-pipeline.ts';
import type { Database } from '../store/database.ts';
import { evaluatedVersion } from './agent-version.ts';
import { runCase } from './case-runner.ts';
import { CostCeiling, scheduleCases } from './case-scheduler.ts';
import { createDatasetRepository, type EvalCase } from './dataset-repository.ts';
import { cancelEvaluation, type EvaluationRun, failAbandoned, finishEvaluation, getEvaluation, insertEvaluation, insertResult, isRunning } from './evaluation-repository.ts';
import { buildScorers, caseScore, DEFAULT_SCORERS } from './scorers/build-scorers.ts';
import type { JudgeCall } from './scorers/judge-scorer.ts';

/** The usage log's endpoint for an evaluation's agent runs and for its judge: evaluation traffic, apart from callers'. */
export const EVALUATION_ENDPOINT = 'agents.evaluation';
export const JUDGE_ENDPOINT = 'agents.evaluation.judge';

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;
export const MAX_CASES = 1_000;

export type EvaluationDeps = {
  db: Database;
  runtime: AgentRuntimeDeps;
  agents: AgentDirectory;
  chat: ChatPipeline;
  now: () => Date;
  /** Writes queued usage rows and run steps, so a finished evaluation's spend reads complete. */
  settle?: () => Promise<void>;
  onError?: (error: unknown, evaluationId: string) => void;
};

export type EvaluationRequest = {
  accountId: string;
  agentId: string;
  /** `draft`, `published` (the default), `latest`, or a version number. */
  version?: string;
  /** The dataset's name or id. */
  dataset: string;
  /** Scorer declarations; without them the agent's own, else every case's expectations. */
  scorers?: unknown;
  concurrency?: number;
  maxCostMicros?: number;
  createdBy?: string;
  /** The key the runs are billed to; the account's system caller (no key limits) when absent. */
  key?: ApiKeyRecord;
};

export const newEvaluationId = () => `eval_${randomHex(12)}`;

/**
 * Runs evaluations in this process, in the background: each case a real agent run, at most
 * `concurrency` at once, until every case ran or the cost ceiling would be passed. A
 * process that stops ends its evaluations as failed; they do not move to another process.
 */
export class EvaluationService {
  readonly #deps: EvaluationDeps;
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();

  constructor(deps: EvaluationDeps) {
    this.#deps = deps;
  }

  /** Throws as `start` would when the account has no such agent version: an experiment checks both sides before it starts either. */
  async checkVersion(accountId: string, agentId: string, version: string): Promise<void> {
    await evaluatedVersion(this.#deps.agents, accountId, agentId, version);
  }

  /** Checks the request, stores the evaluation and starts it; resolves once it is stored. */
  async start(request: EvaluationRequest): Promise<EvaluationRun> {
    const { db, agents } = this.#deps;
    const version = request.version ?? 'published';
    const agent = await evaluatedVersion(agents, request.accountId, request.agentId, version);
    const datasets = createDatasetRepository(db);
    const dataset = await datasets.find(request.accountId, request.dataset);
    if (!dataset) throw new JunctionError('not_found', `No dataset '${request.dataset}' in this account.`, { param: 'dataset' });
    const cases = await datasets.listCases(request.accountId, dataset.id, { limit: MAX_CASES + 1 });
    if (cases.length === 0) throw new JunctionError('invalid_request', `Dataset '${dataset.name}' has no cases to run.`, { param: 'dataset' });
    if (cases.length > MAX_CASES) throw new JunctionError('invalid_request', `Dataset '${dataset.name}' has more than ${MAX_CASES} cases: split it to evaluate it.`, { param: 'dataset' });
    const scorers = scorersFor(request.scorers, agent);
    const concurrency = Math.min(Math.max(1, request.concurrency ?? DEFAULT_CONCURRENCY), MAX_CONCURRENCY);
    const evaluation = await insertEvaluation(db, {
      id: newEvaluationId(),
      accountId: request.accountId,
      agentId: agent.id,
      versionSelector: version,
      agentVersion: agent.version ?? null,
      datasetId: dataset.id,
      datasetName: dataset.name,
      scorers,
      concurrency,
      maxCostMicros: request.maxCostMicros ?? null,
      caseCount: cases.length,
      createdBy: request.createdBy ?? null,
    });
    const controller = new AbortController();
    const key = request.key ?? systemKeyFor(request.accountId, this.#deps.now());
    const done = this.#execute(evaluation, agent, cases, key, controller)
      .catch(async (error: unknown) => {
        this.#deps.onError?.(error, evaluation.id);
        await finishEvaluation(db, evaluation.id, { status: 'failed', error: (error as Error).message }).catch(() => undefined);
      })
      .finally(() => this.#running.delete(evaluation.id));
    this.#running.set(evaluation.id, { controller, done });
    return evaluation;
  }

  /** Resolves when the evaluation has ended (at once when this process is not running it). */
  async wait(id: string): Promise<void> {
    await this.#running.get(id)?.done;
  }

  /**
   * Cancels a running evaluation: marked stopped (`cancelled`) for every process, its runs
   * here aborted and awaited; a process running it elsewhere stops before its next case.
   * An evaluation left running by a process that was killed is ended this way too.
   */
  async cancel(accountId: string, id: string): Promise<EvaluationRun | undefined> {
    const cancelled = await cancelEvaluation(this.#deps.db, accountId, id);
    const local = this.#running.get(id);
    if (cancelled && local) {
      local.controller.abort(new Error('the evaluation was cancelled'));
      await local.done;
    }
    return getEvaluation(this.#deps.db, accountId, id);
  }

  /** Stops every evaluation this process runs (their runs are aborted) and marks them failed. */
  async close(): Promise<void> {
    const running = [...this.#running.entries()];
    for (const [, entry] of running) entry.controller.abort(new Error('the server is stopping'));
    await Promise.allSettled(running.map(([, entry]) => entry.done));
    await failAbandoned(
      this.#deps.db,
      running.map(([id]) => id),
      'the server stopped while the evaluation ran',
    ).catch(() => undefined);
  }

  async #execute(evaluation: EvaluationRun, agent: OwnedAgent, cases: readonly EvalCase[], key: ApiKeyRecord, controller: AbortController): Promise<void> {
    const { db, runtime, chat } = this.#deps;
    const { signal } = controller;
    const context: CallContext = { key, requestId: evaluation.id, endpoint: EVALUATION_ENDPOINT, signal };
    const judge: JudgeCall = async ({ model, messages, responseFormat }) => {
      const result = await chat.generate({ ...context, endpoint: JUDGE_ENDPOINT }, { model, request: { messages, responseFormat, temperature: 0 } });
      const text = result.response.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      return { text, costMicros: result.costMicros };
    };
    const scorers = buildScorers(evaluation.scorers, { judge, defaultJudgeModel: agent.config.model });

    const runOne = async (testCase: EvalCase, position: number) => {
      // Cancelled, perhaps by another process: this case and the rest are not run.
      if (!(await isRunning(db, evaluation.id))) {
        controller.abort(new Error('the evaluation was cancelled'));
        return 0;
      }
      const outcome = await runCase(runtime, agent, context, testCase.input);
      const scored = outcome.error === null ? await Promise.all(scorers.map((scorer) => scorer.score(outcome.run, testCase))) : [];
      const results = scored.map((entry) => entry.result);
      const costMicros = outcome.run.costMicros + scored.reduce((sum, entry) => sum + entry.costMicros, 0);
      await insertResult(db, evaluation.accountId, {
        evaluationId: evaluation.id,
        caseId: testCase.id,
        position,
        status: outcome.error === null ? 'completed' : 'failed',
        input: testCase.input,
        reference: testCase.reference,
        answer: outcome.run.answer,
        runId: outcome.runId,
        scores: results,
        // A run that failed scores nothing: it counts as 0 in the evaluation's mean.
        score: outcome.error === null ? caseScore(results) : 0,
        costMicros,
        latencyMs: outcome.run.latencyMs,
        error: outcome.error,
      });
      return costMicros;
    };

    const ceiling = new CostCeiling(evaluation.maxCostMicros, agent.config.maxRunCostMicros);
    const next = await scheduleCases(cases, { concurrency: evaluation.concurrency, ceiling, signal }, runOne);
    if (signal.aborted) return;
    const skipped = cases.slice(next);
    for (const [offset, testCase] of skipped.entries()) {
      await insertResult(db, evaluation.accountId, {
        evaluationId: evaluation.id,
        caseId: testCase.id,
        position: next + offset,
        status: 'skipped',
        input: testCase.input,
        reference: testCase.reference,
        answer: null,
        runId: null,
        scores: [],
        score: null,
        costMicros: 0,
        latencyMs: null,
        error: "not run: the next case could pass the evaluation's max_cost_usd",
      });
    }
    await this.#deps.settle?.();
    await finishEvaluation(db, evaluation.id, skipped.length > 0 ? { status: 'stopped', stopReason: 'max_cost_usd' } : { status: 'completed' });
  }

  /** The evaluation as stored now. */
  get(accountId: string, id: string): Promise<EvaluationRun | undefined> {
    return getEvaluation(this.#deps.db, accountId, id);
  }
}

/** The request's scorers, else the agent's declared ones, else the expectations of every case. */
function scorersFor(requested: unknown, agent: OwnedAgent): ScorerDeclaration[] {
  if (requested !== undefined) {
    const parsed = ScorerListSchema.safeParse(requested);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new JunctionError('invalid_request', `scorers${issue?.path.length ? `.${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid'}`, { param: 'scorers' });
    }
    if (parsed.data.length > 0) return parsed.data;
  }
  const declared = agent.config.scorers ?? [];
  return declared.length > 0 ? declared : DEFAULT_SCORERS;
}
