import { existsSync } from 'node:fs';
import { adminSocketPath, isServing } from '../admin/admin-socket.ts';
import { findAccount } from '../accounts/account-repository.ts';
import { createServices, type Services } from '../assembly/services.ts';
import { readEnvConfig } from '../config/env-config.ts';
import { evaluationDetail, experimentView } from '../console/evaluation-views.ts';
import type { EvaluationDetail, ExperimentView } from '../console/contract/evaluations.ts';
import { usdToMicros } from '../core/money.ts';
import { getEvaluation, listResults } from '../evaluation/evaluation-repository.ts';
import { EvaluationService } from '../evaluation/evaluation-service.ts';
import { readExperiment, startExperiment } from '../evaluation/experiment-service.ts';
import { CliUsageError } from './run-command.ts';

export type EvalRunOptions = {
  agent: string;
  dataset: string;
  /** The version evaluated (the candidate when there is a baseline); default `draft`. */
  version?: string;
  baseline?: string;
  failBelow?: number;
  account?: string;
  concurrency?: number;
  maxCostUsd?: number;
  json?: boolean;
};

/** What `eval run` found, and whether it passes the gate (the exit code follows from `passed`). */
export type EvalRunReport = { passed: boolean; reasons: string[]; evaluation: EvaluationDetail; experiment?: ExperimentView };

/**
 * `junction eval run`: evaluates a version of an agent over a dataset in this process (each
 * case a billed agent run through the providers of this configuration), compared with a
 * baseline version when one is named. It fails when the mean score is below `failBelow`, or
 * when the candidate is worse than the baseline beyond the 95% interval.
 */
export async function runEval(options: EvalRunOptions): Promise<EvalRunReport> {
  const config = readEnvConfig({ LOG_LEVEL: 'silent', ...process.env });
  if (!config.databaseUrl && config.dataDir.startsWith('memory://'))
    throw new CliUsageError("eval run needs a store that holds the dataset: set JUNCTION_DATA_DIR to the server's folder, or DATABASE_URL.");
  const embeddedDir = !config.databaseUrl ? config.dataDir : undefined;
  if (embeddedDir) {
    const socket = adminSocketPath(embeddedDir);
    if (existsSync(socket) && (await isServing(socket))) {
      throw new CliUsageError(
        'A running server holds this embedded store: run the evaluation on it with --url and an agent key in JUNCTION_AGENT_KEY, stop it for the evaluation, or run Junction on PostgreSQL (DATABASE_URL).',
      );
    }
  }
  // Runs spend: their budget leases hang off a registered process.
  const services = await createServices(config, { registerProcess: true });
  try {
    return await evaluate(services, options);
  } finally {
    await services.close();
  }
}

async function evaluate(services: Services, options: EvalRunOptions): Promise<EvalRunReport> {
  const { agentDirectory, agentRuntime } = services;
  if (!agentDirectory || !agentRuntime) throw new CliUsageError('agents are not loaded in this configuration');
  const accountId = options.account ? (await findAccount(services.db, options.account))?.id : services.defaultAccount.id;
  if (!accountId) throw new CliUsageError(`no account with id ${options.account}`);
  const evaluations = new EvaluationService({
    db: services.db,
    runtime: agentRuntime,
    agents: agentDirectory,
    chat: services.chat,
    now: services.now,
    settle: () => services.settlements.drain(5_000),
  });
  const request = {
    accountId,
    agentId: options.agent,
    dataset: options.dataset,
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    ...(options.maxCostUsd !== undefined && { maxCostMicros: usdToMicros(options.maxCostUsd) }),
    createdBy: 'cli',
  };
  const version = options.version ?? 'draft';
  let candidateId: string;
  let experimentId: string | undefined;
  try {
    if (options.baseline !== undefined) {
      const started = await startExperiment(services.db, evaluations, { ...request, baseline: { version: options.baseline }, candidate: { version } });
      await Promise.all([evaluations.wait(started.baseline.id), evaluations.wait(started.candidate.id)]);
      candidateId = started.candidate.id;
      experimentId = started.experiment.id;
    } else {
      const started = await evaluations.start({ ...request, version });
      await evaluations.wait(started.id);
      candidateId = started.id;
    }
  } finally {
    await evaluations.close();
  }
  const run = await getEvaluation(services.db, accountId, candidateId);
  if (!run) throw new Error('the evaluation vanished');
  const evaluation = evaluationDetail(run, await listResults(services.db, accountId, candidateId));
  const state = experimentId ? await readExperiment(services.db, accountId, experimentId) : undefined;
  const experiment = state ? experimentView(state) : undefined;
  const reasons = gateReasons(evaluation, experiment, options.failBelow);
  return { passed: reasons.length === 0, reasons, evaluation, ...(experiment && { experiment }) };
}

/** Why the gate fails, one sentence each; none when it passes. */
export function gateReasons(evaluation: EvaluationDetail, experiment: ExperimentView | undefined, failBelow: number | undefined): string[] {
  const reasons: string[] = [];
  if (evaluation.status === 'failed') reasons.push(`the evaluation failed: ${evaluation.error ?? 'no reason recorded'}`);
  if (failBelow !== undefined) {
    if (evaluation.mean_score === null) reasons.push('no case was scored, so the mean score cannot reach --fail-below');
    else if (evaluation.mean_score < failBelow) reasons.push(`the mean score ${evaluation.mean_score.toFixed(3)} is below ${failBelow}`);
  }
  if (experiment?.regressed) {
    const { mean, high } = experiment.overall.difference;
    reasons.push(`the candidate scores lower than the baseline beyond the 95% interval (difference ${mean?.toFixed(3)}, interval up to ${high?.toFixed(3)})`);
  }
  return reasons;
}
