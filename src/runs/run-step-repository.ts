import type { Queryable } from '../store/database.ts';
import type { RunStepKind } from './run-step.ts';

/** A step as a batch sends it (snake_case: it goes to the database as JSON). */
export type RunStepRow = {
  id: string;
  account_id: string;
  run_id: string;
  response_id: string | null;
  parent_step_id: string | null;
  seq: number;
  kind: RunStepKind;
  name: string;
  agent_id: string;
  agent_version: string | null;
  agent_path: string | null;
  key_id: string | null;
  started_at: string;
  ended_at: string;
  input_tokens: number;
  output_tokens: number;
  cost_micros: number;
  status: string;
  content: unknown;
};

/** One statement for a batch; an account that keeps metadata only gets no content, decided by the row the statement reads. */
export async function insertRunSteps(db: Queryable, rows: readonly RunStepRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO run_steps (id, account_id, run_id, response_id, parent_step_id, seq, kind, name, agent_id, agent_version, agent_path, key_id,
       started_at, ended_at, input_tokens, output_tokens, cost_micros, status, content)
     SELECT r.id, r.account_id, r.run_id, r.response_id, r.parent_step_id, r.seq, r.kind, r.name, r.agent_id, r.agent_version, r.agent_path, r.key_id,
       r.started_at, r.ended_at, r.input_tokens, r.output_tokens, r.cost_micros, r.status,
       CASE WHEN a.run_step_content = 'content' THEN r.content END
     FROM jsonb_to_recordset($1::jsonb) AS r(id text, account_id uuid, run_id text, response_id text, parent_step_id text, seq integer, kind text, name text,
       agent_id text, agent_version text, agent_path text, key_id text, started_at timestamptz, ended_at timestamptz, input_tokens integer,
       output_tokens integer, cost_micros bigint, status text, content jsonb)
     JOIN accounts a ON a.id = r.account_id
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

export type StoredRunStep = Omit<RunStepRow, 'started_at' | 'ended_at' | 'cost_micros'> & { started_at: Date; ended_at: Date; cost_micros: string | number };

/** Whether a run of this account has steps (by run id, or by the response it answered). */
export async function findRunId(db: Queryable, accountId: string, id: string): Promise<string | undefined> {
  const found = await db.query<{ run_id: string }>(
    `SELECT run_id FROM run_steps WHERE account_id = $1 AND run_id = $2
     UNION ALL SELECT run_id FROM run_steps WHERE account_id = $1 AND response_id = $2
     UNION ALL SELECT id FROM agent_runs WHERE account_id = $1 AND response_id = $2
     LIMIT 1`,
    [accountId, id],
  );
  return found.rows[0]?.run_id;
}

/** The run's steps in the order they started, at most `limit`. */
export async function listRunSteps(db: Queryable, accountId: string, runId: string, limit = 2_000): Promise<StoredRunStep[]> {
  const result = await db.query<StoredRunStep>(
    `SELECT id, account_id, run_id, response_id, parent_step_id, seq, kind, name, agent_id, agent_version, agent_path, key_id,
       started_at, ended_at, input_tokens, output_tokens, cost_micros, status, content
     FROM run_steps WHERE account_id = $1 AND run_id = $2 ORDER BY started_at, seq LIMIT $3`,
    [accountId, runId, limit],
  );
  return result.rows;
}

/** Deletes at most `batch` steps that started before `before`; returns how many went. */
export async function deleteRunStepsBefore(db: Queryable, before: Date, batch: number): Promise<number> {
  const result = await db.query(`DELETE FROM run_steps WHERE id IN (SELECT id FROM run_steps WHERE started_at < $1 ORDER BY started_at LIMIT $2)`, [before, batch]);
  return result.rowCount;
}
