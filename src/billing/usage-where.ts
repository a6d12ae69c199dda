import type { Queryable } from '../store/database.ts';
import type { UsageFilterValues } from './usage-filter-schema.ts';
import { modelNamesMatching } from './usage-rollups.ts';
import { storedStatuses } from './usage-status.ts';

/** More names than this and a model search is matched on the rows themselves instead. */
export const MODEL_NAMES_MAX = 200;

/** A WHERE clause over usage_log and its parameters, `$1` being the account. */
export type UsageWhere = { sql: string; params: unknown[] };

/**
 * The one filter rule of the usage log, for its pages, exports, group-bys and
 * `GET /v1/usage`. A model search first finds the matching names among the account's
 * daily rollups (a few hundred rows, not millions), then reads the rows of exactly those
 * names through the (account, model, time) index.
 */
export async function usageWhere(db: Queryable, accountId: string, filters: UsageFilterValues): Promise<UsageWhere> {
  const conditions = ['account_id = $1'];
  const params: unknown[] = [accountId];
  const add = (sql: string, ...values: unknown[]) => {
    let text = sql;
    for (const value of values) text = text.replace('?', `$${params.push(value)}`);
    conditions.push(text);
  };
  if (filters.keyId) add('key_id = ?', filters.keyId);
  if (filters.model) {
    const names = await modelNamesMatching(db, accountId, filters.model, filters, MODEL_NAMES_MAX + 1);
    if (names.length > MODEL_NAMES_MAX) add(`strpos(lower(COALESCE(model, requested_model, 'unknown')), lower(?)) > 0`, filters.model);
    else if (names.length === 0) conditions.push('false');
    // A row is named by its model, or by the model it asked for when none served it (the rollups' name).
    else add(`(model = ANY(?::text[]) OR (model IS NULL AND COALESCE(requested_model, 'unknown') = ANY(?::text[])))`, names, names);
  }
  if (filters.status) {
    const statuses = storedStatuses(filters.status);
    if (statuses.length === 1) add('status = ?', statuses[0]);
    else add('status = ANY(?::text[])', statuses);
  }
  if (filters.endpoint) add('endpoint = ?', filters.endpoint);
  if (filters.agentId) add('agent_id = ?', filters.agentId);
  if (filters.from) add('created_at >= ?', filters.from);
  if (filters.to) add('created_at < ?', filters.to);
  return { sql: conditions.join(' AND '), params };
}
