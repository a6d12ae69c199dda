import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { type EvaluationDetail, EvaluationDetailSchema, ExperimentViewSchema } from '../console/contract/evaluations.ts';
import { type EvalRunOptions, type EvalRunReport, gateReasons } from './eval-command.ts';
import { CliUsageError } from './run-command.ts';

/** How often a running evaluation is asked about. */
const POLL_MS = 1_000;

/**
 * `eval run --url`: the evaluation runs on a Junction server, started with an agent key
 * (JUNCTION_AGENT_KEY) through `/agents/v1`, for a CI runner that cannot reach the store.
 * The gate is the same as in-process: the server's report, judged here.
 */
export async function runEvalRemote(options: EvalRunOptions & { url: string; key: string }, pollMs = POLL_MS): Promise<EvalRunReport> {
  const base = `${options.url.replace(/\/+$/, '')}/agents/v1`;
  const call = async <Schema extends z.ZodType>(schema: Schema, path: string, body?: unknown): Promise<z.infer<Schema>> => {
    const response = await fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${options.key}`, accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }).catch((error: unknown) => {
      throw new CliUsageError(`cannot reach ${options.url}: ${(error as Error).message}`);
    });
    const json: unknown = await response.json().catch(() => ({}));
    if (!response.ok) throw new CliUsageError(`${response.status} from ${path}: ${(json as { error?: { message?: string } }).error?.message ?? 'no message'}`);
    return schema.parse(json);
  };
  const until = async <Schema extends z.ZodType<{ status: string }>>(schema: Schema, path: string): Promise<z.infer<Schema>> => {
    for (;;) {
      const current = await call(schema, path);
      if (current.status !== 'running') return current;
      await sleep(pollMs);
    }
  };
  const body = {
    agent: options.agent,
    dataset: options.dataset,
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    ...(options.maxCostUsd !== undefined && { max_cost_usd: options.maxCostUsd }),
  };
  const version = options.version ?? 'draft';
  let evaluation: EvaluationDetail;
  let experiment: z.infer<typeof ExperimentViewSchema> | undefined;
  if (options.baseline !== undefined) {
    const started = await call(ExperimentViewSchema, '/experiments', { ...body, baseline: { version: options.baseline }, candidate: { version } });
    experiment = await until(ExperimentViewSchema, `/experiments/${started.id}`);
    evaluation = await call(EvaluationDetailSchema, `/evaluations/${experiment.candidate.id}`);
  } else {
    const started = await call(EvaluationDetailSchema.omit({ results: true }), '/evaluations', { ...body, version });
    evaluation = await until(EvaluationDetailSchema, `/evaluations/${started.id}`);
  }
  const reasons = gateReasons(evaluation, experiment, options.failBelow);
  return { passed: reasons.length === 0, reasons, evaluation, ...(experiment && { experiment }) };
}
