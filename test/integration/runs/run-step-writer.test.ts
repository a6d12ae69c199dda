import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStepWriter } from '../../../src/runs/run-step-writer.ts';
import type { RunStepRecord } from '../../../src/runs/run-step.ts';
import { openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** The writer batches steps off the turn; a batch the database refuses is reported and dropped, never thrown into a run. */
let store: Awaited<ReturnType<typeof openKnowledgeDatabase>>;
beforeAll(async () => {
  store = await openKnowledgeDatabase();
});
afterAll(async () => store?.close());

const step = (id: string, fields: Partial<RunStepRecord> = {}): RunStepRecord => ({
  id,
  accountId: store.accountId,
  runId: 'run_writer',
  responseId: undefined,
  parentStepId: undefined,
  seq: 0,
  kind: 'tool',
  name: 'echo_upper',
  agentId: 'helper',
  agentVersion: undefined,
  agentPath: undefined,
  keyId: undefined,
  startedAt: Date.now(),
  endedAt: Date.now(),
  inputTokens: 0,
  outputTokens: 0,
  costMicros: 2_000,
  status: 'ok',
  content: () => ({ arguments: { text: 'fake' }, result: 'FAKE' }),
  ...fields,
});

describe(`the run step writer on ${engineName()}`, () => {
  it('writes queued steps in one batch on flush', async () => {
    const writer = new RunStepWriter(store.db, { intervalMs: 60_000 });
    writer.record(step('stp_a'));
    writer.record(step('stp_b', { seq: 1 }));
    const before = await store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM run_steps WHERE run_id = 'run_writer'`);
    expect(before.rows[0]?.n).toBe(0);
    await writer.flush();
    const rows = await store.db.query<{ id: string; content: unknown; cost_micros: string }>(`SELECT id, content, cost_micros FROM run_steps WHERE run_id = 'run_writer' ORDER BY seq`);
    expect(rows.rows.map((row) => [row.id, Number(row.cost_micros)])).toEqual([
      ['stp_a', 2000],
      ['stp_b', 2000],
    ]);
    expect(rows.rows[0]?.content).toEqual({ arguments: { text: 'fake' }, result: 'FAKE' });
  });

  it('reports and drops a batch the database refuses, and writes the next one', async () => {
    const failures: number[] = [];
    const writer = new RunStepWriter(store.db, { intervalMs: 60_000, onError: (_error, dropped) => failures.push(dropped) });
    writer.record(step('stp_bad', { kind: 'not-a-kind' as RunStepRecord['kind'] }));
    await expect(writer.flush()).resolves.toBeUndefined();
    expect(failures).toEqual([1]);
    writer.record(step('stp_good', { runId: 'run_writer_2' }));
    await writer.flush();
    const rows = await store.db.query<{ id: string }>(`SELECT id FROM run_steps WHERE run_id = 'run_writer_2'`);
    expect(rows.rows.map((row) => row.id)).toEqual(['stp_good']);
  });

  it('keeps memory bounded: steps past the queue limit are dropped and reported', async () => {
    const failures: number[] = [];
    const writer = new RunStepWriter(store.db, { intervalMs: 60_000, maxQueued: 2, onError: (_error, dropped) => failures.push(dropped) });
    for (const id of ['stp_q1', 'stp_q2', 'stp_q3']) writer.record(step(id, { runId: 'run_writer_3' }));
    expect(failures).toEqual([1]);
    await writer.flush();
    const rows = await store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM run_steps WHERE run_id = 'run_writer_3'`);
    expect(rows.rows[0]?.n).toBe(2);
  });
});
