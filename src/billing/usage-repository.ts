import type { Queryable } from '../store/database.ts';
import type { UsageFilterValues } from './usage-filter-schema.ts';
import { usageWhere } from './usage-where.ts';

export type UsageRow = {
  id: string;
  key_id: string | null;
  request_id: string;
  endpoint: string;
  requested_model: string | null;
  model: string | null;
  provider: string | null;
  upstream_model: string | null;
  status: string;
  http_status: number | null;
  error_code: string | null;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  units: Record<string, number> | null;
  cost_micros: number;
  latency_ms: number | null;
  attempts: number;
  streamed: boolean;
  agent_id: string | null;
  agent_version: string | null;
  agent_run_id: string | null;
  cache_hit: boolean;
  created_at: Date;
};

const COLUMNS = `id, key_id, request_id, endpoint, requested_model, model, provider, upstream_model, status, http_status,
  error_code, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, units, cost_micros,
  latency_ms, attempts, streamed, agent_id, agent_version, agent_run_id, cache_hit, created_at`;

/** One generation, only if it belongs to this key (a caller reads its own generations). */
export async function findGeneration(db: Queryable, keyId: string, id: string): Promise<UsageRow | undefined> {
  const result = await db.query<UsageRow>(`SELECT ${COLUMNS} FROM usage_log WHERE id = $1 AND key_id = $2`, [id, keyId]);
  return result.rows[0];
}

export type UsageFilters = UsageFilterValues & {
  /** Keyset cursor: rows strictly older than this (created_at, id). */
  before?: { createdAt: Date; id: string };
  limit: number;
};

/** The account's log, newest first, filtered; keyset-paged so pages stay stable while rows arrive. */
export async function listUsage(db: Queryable, accountId: string, filters: UsageFilters): Promise<UsageRow[]> {
  const where = await usageWhere(db, accountId, filters);
  const params = [...where.params];
  let keyset = '';
  if (filters.before) {
    params.push(filters.before.createdAt, filters.before.id);
    // The plain bound on created_at lets the planner skip the months after the cursor; the row comparison cannot.
    keyset = ` AND created_at <= $${params.length - 1} AND (created_at, id) < ($${params.length - 1}, $${params.length})`;
  }
  params.push(filters.limit);
  const result = await db.query<UsageRow>(`SELECT ${COLUMNS} FROM usage_log WHERE ${where.sql}${keyset} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`, params);
  return result.rows;
}
