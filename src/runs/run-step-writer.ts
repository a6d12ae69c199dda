import type { Queryable } from '../store/database.ts';
import { insertRunSteps, type RunStepRow } from './run-step-repository.ts';
import type { RunStepRecord, RunStepSink } from './run-step.ts';
import { boundContent } from './step-content.ts';

export type RunStepWriterOptions = {
  /** How long a step waits in memory before its batch is written. */
  intervalMs?: number;
  /** The most steps one statement writes. */
  maxBatch?: number;
  /** Steps beyond this many waiting are dropped (the database is down or slow): memory stays bounded. */
  maxQueued?: number;
  onError?: (error: unknown, dropped: number) => void;
};

/**
 * Writes run steps in batches on a timer, off the turn: `record` only queues, so a run
 * never waits for the database, and a batch that fails is dropped and reported, never
 * raised into a run. Contents are built and bounded when the batch is written.
 */
export class RunStepWriter implements RunStepSink {
  readonly #db: Queryable;
  readonly #intervalMs: number;
  readonly #maxBatch: number;
  readonly #maxQueued: number;
  readonly #onError: (error: unknown, dropped: number) => void;
  #queue: RunStepRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;

  constructor(db: Queryable, options: RunStepWriterOptions = {}) {
    this.#db = db;
    this.#intervalMs = options.intervalMs ?? 200;
    this.#maxBatch = options.maxBatch ?? 200;
    this.#maxQueued = options.maxQueued ?? 10_000;
    this.#onError = options.onError ?? (() => undefined);
  }

  record(step: RunStepRecord): void {
    if (this.#queue.length >= this.#maxQueued) {
      this.#onError(new Error('too many run steps waiting to be written'), 1);
      return;
    }
    this.#queue.push(step);
    this.#timer ??= setTimeout(() => void this.flush(), this.#intervalMs).unref();
  }

  /** Writes every step queued so far (tests and shutdown wait on it). */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#flushing) await this.#flushing;
    if (this.#queue.length === 0) return;
    this.#flushing = this.#writeAll().finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  async close(): Promise<void> {
    await this.flush();
  }

  async #writeAll(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      try {
        await insertRunSteps(this.#db, batch.map(toRow));
      } catch (error) {
        this.#onError(error, batch.length);
      }
    }
  }
}

function toRow(step: RunStepRecord): RunStepRow {
  let content: unknown = null;
  try {
    content = step.content ? boundContent(step.content()) : null;
  } catch {
    content = { error: 'the content of this step could not be read' };
  }
  return {
    id: step.id,
    account_id: step.accountId,
    run_id: step.runId,
    response_id: step.responseId ?? null,
    parent_step_id: step.parentStepId ?? null,
    seq: step.seq,
    kind: step.kind,
    name: step.name.slice(0, 200),
    agent_id: step.agentId,
    agent_version: step.agentVersion ?? null,
    agent_path: step.agentPath ?? null,
    key_id: step.keyId ?? null,
    started_at: new Date(step.startedAt).toISOString(),
    ended_at: new Date(Math.max(step.endedAt, step.startedAt)).toISOString(),
    input_tokens: step.inputTokens,
    output_tokens: step.outputTokens,
    cost_micros: Math.max(0, Math.round(step.costMicros)),
    status: step.status,
    content,
  };
}
