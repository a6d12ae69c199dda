import { z } from 'zod';
import type { Database, Queryable } from '../../store/database.ts';

/**
 * SQL for `agent_runs` and `agent_run_events` (migration 0008). A background run is
 * held by one process at a time through a lease (`holder_id`, `lease_expires_at`) it
 * renews; every write a holder makes is fenced on still holding it, so a process that
 * lost its lease (it stalled, another process took the run over) can change nothing.
 */

export const RUN_ACTIVE = ['queued', 'in_progress'] as const;
export const NOTIFY_CANCEL = 'junction_agent_run_cancel';

/** The response as it stood at the last checkpoint. Plain JSON. */
export const RunSnapshotSchema = z.object({
  sequence: z.number().int(),
  output: z.array(z.record(z.string(), z.unknown())),
  totals: z.object({
    usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cachedInputTokens: z.number(), reasoningTokens: z.number() }),
    modelCostMicros: z.number(),
    toolCostMicros: z.number(),
  }),
  /** How many messages the run's checkpoint held when `output` was taken: a process taking the run over streams the rest again. */
  messages: z.number().int().optional(),
});
export type RunSnapshot = z.infer<typeof RunSnapshotSchema>;

export type RunRow = {
  id: string;
  response_id: string;
  account_id: string;
  key_id: string;
  agent_id: string;
  status: string;
  background: boolean;
  request: unknown;
  holder_id: string | null;
  cancel_requested: boolean;
  snapshot: unknown;
  attempts: number;
  created_at: Date;
};

const COLUMNS = 'id, response_id, account_id, key_id, agent_id, status, background, request, holder_id, cancel_requested, snapshot, attempts, created_at';
const lease = (seconds: number) => `now() + make_interval(secs => ${Number(seconds)})`;

export type NewRun = { id: string; responseId: string; accountId: string; keyId: string; agentId: string; request: unknown; holderId: string; leaseSeconds: number };

/** A background run, held by the process that accepted it from the start. */
export async function insertRun(db: Queryable, run: NewRun): Promise<void> {
  await db.query(
    `INSERT INTO agent_runs (id, response_id, account_id, key_id, agent_id, status, background, request, holder_id, lease_expires_at, attempts)
     VALUES ($1, $2, $3, $4, $5, 'queued', true, $6::jsonb, $7, ${lease(run.leaseSeconds)}, 1)`,
    [run.id, run.responseId, run.accountId, run.keyId, run.agentId, JSON.stringify(run.request), run.holderId],
  );
}

/** Takes over runs whose holder stopped renewing (it died), oldest first. */
export async function claimExpiredRuns(db: Queryable, holderId: string, leaseSeconds: number, limit: number): Promise<RunRow[]> {
  const result = await db.query<RunRow>(
    `UPDATE agent_runs SET holder_id = $1, lease_expires_at = ${lease(leaseSeconds)}, attempts = attempts + 1, updated_at = now()
     WHERE id IN (SELECT id FROM agent_runs WHERE status IN ('queued', 'in_progress') AND lease_expires_at < now()
                  ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING ${COLUMNS}`,
    [holderId, limit],
  );
  return result.rows;
}

/** Extends the leases of the runs this process holds; returns those still held and whether each was cancelled. */
export async function renewLeases(db: Queryable, holderId: string, runIds: string[], leaseSeconds: number): Promise<Array<{ id: string; cancel_requested: boolean }>> {
  if (runIds.length === 0) return [];
  const result = await db.query<{ id: string; cancel_requested: boolean }>(
    `UPDATE agent_runs SET lease_expires_at = ${lease(leaseSeconds)} WHERE id = ANY($1::text[]) AND holder_id = $2 AND status IN ('queued', 'in_progress')
     RETURNING id, cancel_requested`,
    [runIds, holderId],
  );
  return result.rows;
}

/**
 * After a step's checkpoint: appends the run's new events and records the snapshot, in
 * one statement, only while this process holds the run. False: the lease is lost.
 */
export async function saveProgress(db: Queryable, runId: string, holderId: string, events: Array<{ sequence_number: number }>, snapshot: RunSnapshot | undefined): Promise<boolean> {
  const params: unknown[] = [runId, holderId, snapshot === undefined ? null : JSON.stringify(snapshot)];
  const values = events.map((event) => {
    params.push(event.sequence_number, JSON.stringify(event));
    return `($1, $${params.length - 1}::int, $${params.length}::jsonb)`;
  });
  const insert =
    values.length > 0
      ? `, e AS (INSERT INTO agent_run_events (run_id, sequence_number, event) SELECT * FROM (VALUES ${values.join(', ')}) AS v(run_id, sequence_number, event) WHERE EXISTS (SELECT 1 FROM held) ON CONFLICT DO NOTHING)`
      : '';
  const result = await db.query<{ id: string }>(
    `WITH held AS (UPDATE agent_runs SET status = 'in_progress', snapshot = COALESCE($3::jsonb, snapshot), updated_at = now()
                   WHERE id = $1 AND holder_id = $2 AND status IN ('queued', 'in_progress') RETURNING id)${insert}
     SELECT id FROM held`,
    params,
  );
  // rows, not rowCount: for a SELECT over a data-modifying CTE PGlite reports the rows the CTE changed.
  return result.rows.length > 0;
}

/** The run's terminal status, fenced on holding it (inside the transaction that stores the response). */
export async function finishRun(tx: Queryable, runId: string, holderId: string, status: string): Promise<boolean> {
  const result = await tx.query(
    `UPDATE agent_runs SET status = $3, holder_id = NULL, lease_expires_at = NULL, updated_at = now() WHERE id = $1 AND holder_id = $2 AND status IN ('queued', 'in_progress')`,
    [runId, holderId, status],
  );
  return result.rowCount > 0;
}

export type RunOwner = { accountId: string; keyId: string };

export async function findRunByResponse(db: Queryable, owner: RunOwner, responseId: string): Promise<RunRow | undefined> {
  const result = await db.query<RunRow>(`SELECT ${COLUMNS} FROM agent_runs WHERE response_id = $1 AND account_id = $2 AND key_id = $3`, [responseId, owner.accountId, owner.keyId]);
  return result.rows[0];
}

/** Asks the holder to stop (it sees the flag on its next renewal, or at once through NOTIFY). */
export async function requestCancel(db: Database, runId: string): Promise<void> {
  await db.query(`UPDATE agent_runs SET cancel_requested = true WHERE id = $1 AND status IN ('queued', 'in_progress')`, [runId]);
  await db.query('SELECT pg_notify($1, $2)', [NOTIFY_CANCEL, runId]);
}

export async function insertEvents(db: Queryable, runId: string, events: Array<{ sequence_number: number }>): Promise<void> {
  if (events.length === 0) return;
  const params: unknown[] = [runId];
  const values = events.map((event) => {
    params.push(event.sequence_number, JSON.stringify(event));
    return `($1, $${params.length - 1}, $${params.length}::jsonb)`;
  });
  await db.query(`INSERT INTO agent_run_events (run_id, sequence_number, event) VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`, params);
}

/** Cancels a run nobody holds (its process died and no other took it over yet); false when a holder has it. */
export async function cancelUnheldRun(db: Queryable, runId: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE agent_runs SET status = 'cancelled', cancel_requested = true, holder_id = NULL, lease_expires_at = NULL, updated_at = now()
     WHERE id = $1 AND status IN ('queued', 'in_progress') AND lease_expires_at < now()`,
    [runId],
  );
  return result.rowCount > 0;
}

export async function runStatus(db: Queryable, runId: string): Promise<string | undefined> {
  const result = await db.query<{ status: string }>('SELECT status FROM agent_runs WHERE id = $1', [runId]);
  return result.rows[0]?.status;
}

/** At shutdown: the runs this process holds become claimable at once by the processes still alive. */
export async function releaseLeases(db: Queryable, holderId: string): Promise<void> {
  await db.query(`UPDATE agent_runs SET lease_expires_at = now() WHERE holder_id = $1 AND status IN ('queued', 'in_progress')`, [holderId]);
}

/** Takes a paused run for the request that answers its approvals; false when another request took it first. */
export async function claimPause(db: Queryable, threadId: string): Promise<boolean> {
  const result = await db.query(`UPDATE agent_runs SET status = 'resumed', updated_at = now() WHERE id = $1 AND status = 'requires_action'`, [threadId]);
  return result.rowCount > 0;
}

/**
 * Cancels a run paused for approval, and marks its response cancelled, in one statement:
 * false when it is not paused (an approval took it first, or it was never paused).
 */
export async function cancelPausedRun(db: Queryable, runId: string): Promise<boolean> {
  const result = await db.query<{ id: string }>(
    `WITH run AS (UPDATE agent_runs SET status = 'cancelled', updated_at = now() WHERE id = $1 AND status = 'requires_action' RETURNING response_id, account_id, key_id),
          response AS (UPDATE responses SET status = 'cancelled' FROM run WHERE responses.id = run.response_id AND responses.account_id = run.account_id AND responses.key_id = run.key_id)
     SELECT response_id AS id FROM run`,
    [runId],
  );
  // rows, not rowCount: for a SELECT over a data-modifying CTE PGlite reports the rows the CTE changed.
  return result.rows.length > 0;
}

/** Closes the pause of a response the conversation moved on from (a plain turn continued it); its thread id, if it was paused. */
export async function supersedePause(db: Queryable, owner: RunOwner, responseId: string): Promise<string | undefined> {
  const result = await db.query<{ id: string }>(
    `UPDATE agent_runs SET status = 'superseded', updated_at = now() WHERE response_id = $1 AND account_id = $2 AND key_id = $3 AND status = 'requires_action' RETURNING id`,
    [responseId, owner.accountId, owner.keyId],
  );
  return result.rows[0]?.id;
}

/** Records (or moves to a newer response) the pause of a thread, in the transaction that stores the response. */
export async function upsertPause(tx: Queryable, pause: { threadId: string; responseId: string; accountId: string; keyId: string; agentId: string; request: unknown }): Promise<void> {
  await tx.query(
    `INSERT INTO agent_runs (id, response_id, account_id, key_id, agent_id, status, background, request)
     VALUES ($1, $2, $3, $4, $5, 'requires_action', false, $6::jsonb)
     ON CONFLICT (id) DO UPDATE SET response_id = EXCLUDED.response_id, status = 'requires_action', request = EXCLUDED.request,
       holder_id = NULL, lease_expires_at = NULL, updated_at = now()`,
    [pause.threadId, pause.responseId, pause.accountId, pause.keyId, pause.agentId, JSON.stringify(pause.request)],
  );
}

export async function readEvents(db: Queryable, runId: string, after: number): Promise<Array<Record<string, unknown> & { sequence_number: number }>> {
  const result = await db.query<{ event: Record<string, unknown> & { sequence_number: number } }>(
    'SELECT event FROM agent_run_events WHERE run_id = $1 AND sequence_number > $2 ORDER BY sequence_number',
    [runId, after],
  );
  return result.rows.map((row) => row.event);
}

/** A resumed run drops the events a dead process sent after its last checkpoint: they are produced again. */
export async function dropEventsAfter(db: Queryable, runId: string, sequence: number): Promise<void> {
  await db.query('DELETE FROM agent_run_events WHERE run_id = $1 AND sequence_number > $2', [runId, sequence]);
}
