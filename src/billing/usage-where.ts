import type { Queryable } from '../store/database.ts';
import type { UsageFilterValues } from './usage-filter-schema.ts';
import { modelNamesMatching } from './usage-rollups.ts';
import { storedStatuses } from './usage-status.ts';

/** More names than this and a model search is matched on the rows themselves instead. */
export const MODEL_NAMES_MAX = 200;

/** A WHERE clause over usage_log and its parameters, `$1` being the account. */
export type UsageWhere = { sql: string; params: unknown[] };

/**
 * What a model search matches, by the name the rollups give a row (COALESCE(model,
 * requested_model, 'unknown')): exactly these names, or, beyond MODEL_NAMES_MAX of them,
 * every name holding the text.
 */
export type ModelMatch = { names: string[] } | { text: string };

/**
 * The names a model search matches, found among the account's daily rollups (a few
 * hundred rows, not millions); undefined without a model filter.
 */
export async function modelMatchOf(db: Queryable, accountId: string, filters: UsageFilterValues): Promise<ModelMatch | undefined> {
  if (!filters.model) return undefined;
  const names = await modelNamesMatching(db, accountId, filters.model, filters, MODEL_NAMES_MAX + 1);
  return names.length > MODEL_NAMES_MAX ? { text: filters.model } : { names };
}

/**
 * The one filter rule of the usage log, for its pages, exports, group-bys and
 * `GET /v1/usage`. A model search reads the rows of exactly the names it matches through
 * the (account, model, time) index.
 */
export async function usageWhere(db: Queryable, accountId: string, filters: UsageFilterValues): Promise<UsageWhere> {
  const params: unknown[] = [accountId];
  return { sql: usageConditions(params, filters, await modelMatchOf(db, accountId, filters)), params };
}

/**
 * The filters' conditions over usage_log, their values pushed onto `params`, whose `$1` is
 * the account: several of them can share one statement's parameters.
 */
export function usageConditions(params: unknown[], filters: UsageFilterValues, match: ModelMatch | undefined): string {
  const conditions = ['account_id = $1'];
  const add = (sql: string, ...values: unknown[]) => {
    let text = sql;
    for (const value of values) text = text.replace('?', `$${params.push(value)}`);
    conditions.push(text);
  };
  if (filters.keyId) add('key_id = ?', filters.keyId);
  if (match && 'text' in match) add(`strpos(lower(COALESCE(model, requested_model, 'unknown')), lower(?)) > 0`, match.text);
  else if (match?.names.length === 0) conditions.push('false');
  // A row is named by its model, or by the model it asked for when none served it (the rollups' name).
  else if (match) add(`(model = ANY(?::text[]) OR (model IS NULL AND COALESCE(requested_model, 'unknown') = ANY(?::text[])))`, match.names, match.names);
  if (filters.status) {
    const statuses = storedStatuses(filters.status);
    if (statuses.length === 1) add('status = ?', statuses[0]);
    else add('status = ANY(?::text[])', statuses);
  }
  if (filters.endpoint) add('endpoint = ?', filters.endpoint);
  if (filters.agentId) add('agent_id = ?', filters.agentId);
  if (filters.from) add('created_at >= ?', filters.from);
  if (filters.to) add('created_at < ?', filters.to);
  return conditions.join(' AND ');
}
