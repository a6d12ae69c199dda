import { randomBytes } from 'node:crypto';

/** A new agent run id (also the LangGraph thread id of the run's checkpoints). */
export const newRunId = () => `run_${randomBytes(12).toString('hex')}`;
