import { RunStepWriter } from '../runs/run-step-writer.ts';
import type { ServiceBuild } from './service-build.ts';

/** The run steps' writer: batched, off the turn, written out at shutdown (their retention is in retention-services.ts). */
export function runStepServices(build: ServiceBuild): RunStepWriter {
  const { db, logger, startSteps, stops } = build;
  const writer = new RunStepWriter(db, {
    onError: (error, dropped) => logger.warn({ err: error, dropped }, 'run steps could not be written; the run page misses them'),
  });
  startSteps.push(() => {
    stops.push(() => writer.close());
  });
  return writer;
}
