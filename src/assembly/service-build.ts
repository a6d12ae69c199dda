import type { Logger } from 'pino';
import type { EnvConfig } from '../config/env-config.ts';
import type { Database } from '../store/database.ts';

/** A step of the start or of the stop: sync or async, run in order. */
export type ServiceStep = () => Promise<void> | void;

/**
 * What the parts of the services share while they are built: the start-up steps that
 * still run in the store (in order), and the stops that undo what those steps started.
 */
export type ServiceBuild = {
  config: EnvConfig;
  env: Readonly<Record<string, string | undefined>>;
  db: Database;
  logger: Logger;
  now: () => Date;
  onConfigError: (error: Error) => void;
  startSteps: ServiceStep[];
  stops: ServiceStep[];
};
