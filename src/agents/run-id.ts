import { randomHex } from '../core/random-hex.ts';

/** A new agent run id (also the LangGraph thread id of the run's checkpoints). */
export const newRunId = () => `run_${randomHex(12)}`;
