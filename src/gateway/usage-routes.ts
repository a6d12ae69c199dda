import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SettlementQueue } from '../billing/settlement-queue.ts';
import { UsageFilterFields, usageFiltersOf } from '../billing/usage-filter-schema.ts';
import { findGeneration, listUsage, type UsageRow } from '../billing/usage-repository.ts';
import { JunctionError } from '../core/errors.ts';
import { microsToUsd } from '../core/money.ts';
import { authenticatedKey, requireKey } from '../http/auth-hook.ts';
import { parseInput } from '../http/parse-body.ts';
import type { KeyAuthenticator } from '../keys/key-authenticator.ts';
import type { Database } from '../store/database.ts';
import { accountReadsOf } from '../store/reporting-reads.ts';

export type UsageRoutesDeps = { db: Database; authenticator: KeyAuthenticator; settlements: SettlementQueue };

const toUsageView = (row: UsageRow) => ({
  id: row.id,
  key_id: row.key_id,
  request_id: row.request_id,
  endpoint: row.endpoint,
  requested_model: row.requested_model,
  model: row.model,
  provider: row.provider,
  upstream_model: row.upstream_model,
  status: row.status,
  http_status: row.http_status,
  error_code: row.error_code,
  tokens_prompt: row.input_tokens,
  tokens_completion: row.output_tokens,
  tokens_cached: row.cached_input_tokens,
  tokens_cache_write: row.cache_write_tokens,
  tokens_reasoning: row.reasoning_tokens,
  units: row.units,
  total_cost: microsToUsd(row.cost_micros),
  latency_ms: row.latency_ms,
  attempts: row.attempts,
  streamed: row.streamed,
  cache_hit: row.cache_hit,
  agent_id: row.agent_id,
  agent_run_id: row.agent_run_id,
  created_at: row.created_at.toISOString(),
});

// The console's filters exactly (usage-filter-schema.ts): one rule for both.
const UsageQuerySchema = z.strictObject({
  ...UsageFilterFields,
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().optional(),
});

const encodeCursor = (row: UsageRow) => Buffer.from(`${row.created_at.toISOString()}|${row.id}`).toString('base64url');
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw new JunctionError('invalid_request', 'Invalid cursor.', { param: 'cursor' });
  return { createdAt, id };
}

/** `GET /v1/generations/{id}` (the caller's own call) and `GET /v1/usage` (the account's log, provisioning keys). */
export async function usageRoutes(app: FastifyInstance, deps: UsageRoutesDeps): Promise<void> {
  app.get('/generations/:id', { preHandler: requireKey(deps.authenticator, { kinds: ['model'] }) }, async (request) => {
    const key = authenticatedKey(request);
    const { id } = request.params as { id: string };
    // A generation settled milliseconds ago may still be in the group-commit queue.
    await deps.settlements.drain(2_000);
    const row = await findGeneration(deps.db, key.id, id);
    if (!row) throw new JunctionError('not_found', `No generation '${id}' for this key.`);
    return { data: toUsageView(row) };
  });

  app.get('/usage', { preHandler: requireKey(deps.authenticator, { kinds: ['provisioning'] }) }, async (request) => {
    const key = authenticatedKey(request);
    const query = parseInput(UsageQuerySchema, request.query, 'query string');
    await deps.settlements.drain(2_000);
    // A reporting read: on the reads' own connections, never in the gateway's way.
    const rows = await accountReadsOf(deps.db, key.accountId).session((reads) =>
      listUsage(reads, key.accountId, {
        ...usageFiltersOf(query),
        ...(query.cursor && { before: decodeCursor(query.cursor) }),
        limit: query.limit + 1,
      }),
    );
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page.map(toUsageView), has_more: rows.length > query.limit, next_cursor: rows.length > query.limit && last ? encodeCursor(last) : null };
  });
}
