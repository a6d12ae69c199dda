import { RunStepWriter } from '../runs/run-step-writer.ts';
import { runRetentionDays, sweepRunSteps } from '../runs/run-retention.ts';
import type { ServiceBuild } from './service-build.ts';

/** How often old run steps are swept, and how soon after the start the first sweep runs. */
const SWEEP_EVERY_MS = 3_600_000;
const FIRST_SWEEP_MS = 60_000;

/**
 * The run steps' writer (batched, off the turn; written out at shutdown) and their
 * retention: a sweep every hour deletes steps older than JUNCTION_RUN_RETENTION_DAYS.
 */
export function runStepServices(build: ServiceBuild): RunStepWriter {
  const { db, env, logger, now, startSteps, stops } = build;
  const days = runRetentionDays(env);
  const writer = new RunStepWriter(db, {
    onError: (error, dropped) => logger.warn({ err: error, dropped }, 'run steps could not be written; the run page misses them'),
  });
  startSteps.push(() => {
    const sweep = () => void sweepRunSteps({ db, days, now }).catch((error: unknown) => logger.warn({ err: error }, 'the run step retention sweep failed; it runs again later'));
    const first = setTimeout(sweep, FIRST_SWEEP_MS).unref();
    const timer = setInterval(sweep, SWEEP_EVERY_MS).unref();
    stops.push(async () => {
      clearTimeout(first);
      clearInterval(timer);
      await writer.close();
    });
  });
  return writer;
}
