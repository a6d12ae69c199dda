import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import { microsToUsd } from '../core/money.ts';
import { parseInput } from '../http/parse-body.ts';
import { runContentMode, setRunContentMode } from '../runs/run-content-setting.ts';
import { findRunId, listRunSteps, type StoredRunStep } from '../runs/run-step-repository.ts';
import { keyName, runUsageSummary } from '../runs/run-usage.ts';
import type { Database, Queryable } from '../store/database.ts';
import { accountReadsOf } from '../store/reporting-reads.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { RunContentSettingSchema, type RunLookup, type RunStepView, type RunView } from './contract/runs.ts';
import { usageEntryById } from './usage-routes.ts';

export type ConsoleRunsDeps = {
  db: Database;
  now: () => Date;
  /** Writes what is queued (usage rows, run steps), so a page opened right after a run shows all of it. */
  settle: () => Promise<void>;
};

const IdParamsSchema = z.object({ id: z.string().min(1).max(200) });

const latency = (from: Date, to: Date) => Math.max(0, to.getTime() - from.getTime());

const toStep = (row: StoredRunStep): RunStepView => ({
  id: row.id,
  parent_step_id: row.parent_step_id,
  seq: row.seq,
  kind: row.kind,
  name: row.name,
  agent_id: row.agent_id,
  agent_path: row.agent_path,
  started_at: row.started_at.toISOString(),
  ended_at: row.ended_at.toISOString(),
  latency_ms: latency(row.started_at, row.ended_at),
  input_tokens: row.input_tokens,
  output_tokens: row.output_tokens,
  cost_usd: microsToUsd(Number(row.cost_micros)),
  status: row.status,
  content: row.content ?? null,
});

async function runView(reads: Queryable, accountId: string, runId: string): Promise<RunView | undefined> {
  const steps = await listRunSteps(reads, accountId, runId);
  const usage = await runUsageSummary(reads, accountId, runId);
  if (steps.length === 0 && usage.rows === 0) return undefined;
  const first = steps[0];
  const started = steps.length > 0 ? new Date(Math.min(...steps.map((step) => step.started_at.getTime()))) : usage.first_at;
  const ended = steps.length > 0 ? new Date(Math.max(...steps.map((step) => step.ended_at.getTime()))) : usage.last_at;
  const keyId = first?.key_id ?? usage.key_id;
  return {
    run_id: runId,
    response_id: steps.find((step) => step.response_id)?.response_id ?? null,
    agent_id: first?.agent_id ?? usage.agent_id,
    agent_version: first?.agent_version ?? usage.agent_version,
    key_id: keyId,
    key_name: await keyName(reads, accountId, keyId),
    started_at: started?.toISOString() ?? null,
    ended_at: ended?.toISOString() ?? null,
    latency_ms: started && ended ? latency(started, ended) : null,
    input_tokens: steps.reduce((sum, step) => sum + step.input_tokens, 0),
    output_tokens: steps.reduce((sum, step) => sum + step.output_tokens, 0),
    cost_usd: microsToUsd(steps.reduce((sum, step) => sum + Number(step.cost_micros), 0)),
    usage_rows: usage.rows,
    usage_cost_usd: microsToUsd(Number(usage.cost_micros)),
    steps: steps.map(toStep),
  };
}

/** A run or a call of this account by any id it is known by: run id, response id, or usage row id. */
async function lookUp(reads: Queryable, accountId: string, id: string): Promise<RunLookup | undefined> {
  const runId = (await findRunId(reads, accountId, id)) ?? id;
  const run = await runView(reads, accountId, runId);
  if (run) return { kind: 'run', run };
  const call = await usageEntryById(reads, accountId, id);
  if (!call) return undefined;
  if (call.agent_run_id) {
    const owning = await runView(reads, accountId, call.agent_run_id);
    if (owning) return { kind: 'run', run: owning };
  }
  return { kind: 'call', call };
}

/**
 * The run page's data (`/runs/{id}`: a run's steps, or a gateway call's usage row) and the
 * account's switch between keeping step content or metadata only.
 */
export async function consoleRunsRoutes(app: FastifyInstance, deps: ConsoleRunsDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const manager = requireConsoleUser(deps.db, deps.now, 'admin');

  app.get('/runs/:id', { preHandler: reader }, async (request): Promise<RunLookup> => {
    const { accountId } = consoleCaller(request);
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    await deps.settle();
    const found = await accountReadsOf(deps.db, accountId).session((reads) => lookUp(reads, accountId, id));
    if (!found) throw new JunctionError('not_found', 'No run or call with this id in this account.');
    return found;
  });

  app.get('/settings/run-history', { preHandler: reader }, async (request) => ({ keep: await runContentMode(deps.db, consoleCaller(request).accountId) }));

  app.put('/settings/run-history', { preHandler: manager }, async (request) => {
    const { keep } = parseInput(RunContentSettingSchema, request.body);
    await setRunContentMode(deps.db, consoleCaller(request).accountId, keep);
    return { keep };
  });
}
