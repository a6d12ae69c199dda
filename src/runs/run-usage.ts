import type { Queryable } from '../store/database.ts';

/** What a run's usage rows add up to, and who ran it: the bill the steps are checked against. */
export type RunUsageSummary = {
  rows: number;
  cost_micros: string | number;
  input_tokens: string | number;
  output_tokens: string | number;
  key_id: string | null;
  agent_id: string | null;
  agent_version: string | null;
  first_at: Date | null;
  last_at: Date | null;
};

export async function runUsageSummary(db: Queryable, accountId: string, runId: string): Promise<RunUsageSummary> {
  const result = await db.query<RunUsageSummary>(
    `SELECT count(*)::int AS rows, coalesce(sum(cost_micros), 0) AS cost_micros, coalesce(sum(input_tokens), 0) AS input_tokens,
       coalesce(sum(output_tokens), 0) AS output_tokens, min(key_id::text) AS key_id, min(agent_id) AS agent_id, max(agent_version) AS agent_version,
       min(created_at) AS first_at, max(created_at) AS last_at
     FROM usage_log WHERE account_id = $1 AND agent_run_id = $2`,
    [accountId, runId],
  );
  return result.rows[0] as RunUsageSummary;
}

export async function keyName(db: Queryable, accountId: string, keyId: string | null): Promise<string | null> {
  if (!keyId || !/^[0-9a-f-]{36}$/i.test(keyId)) return null;
  const result = await db.query<{ name: string }>('SELECT name FROM api_keys WHERE account_id = $1 AND id = $2', [accountId, keyId]);
  return result.rows[0]?.name ?? null;
}
