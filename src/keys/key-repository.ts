import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../store/database.ts';
import { KEY_CHANGES_CHANNEL, keyChangePayload } from './key-change-sync.ts';
import type { KeyKind } from './key-kind.ts';
import { type ApiKeyRecord, type ApiKeyRow, type KeySettings, toApiKeyRecord } from './key-record.ts';

const COLUMN_OF: Record<keyof KeySettings, string> = {
  name: 'name',
  description: 'description',
  dailyLimitMicros: 'daily_limit_micros',
  monthlyLimitMicros: 'monthly_limit_micros',
  totalLimitMicros: 'total_limit_micros',
  expiresAt: 'expires_at',
  allowedModels: 'allowed_models',
  rateLimitRpm: 'rate_limit_rpm',
  cacheTtlSeconds: 'cache_ttl_seconds',
  disabled: 'disabled',
};

export type NewKey = {
  accountId: string;
  kind: KeyKind;
  lookupId: string;
  secretHash: Uint8Array;
  label: string;
  settings: KeySettings & { name: string };
};

export async function insertKey(db: Queryable, key: NewKey): Promise<ApiKeyRecord> {
  const entries = Object.entries(key.settings).filter(([, value]) => value !== undefined) as Array<[keyof KeySettings, unknown]>;
  const columns = ['account_id', 'kind', 'lookup_id', 'secret_hash', 'label', ...entries.map(([f]) => COLUMN_OF[f])];
  const values = [key.accountId, key.kind, key.lookupId, key.secretHash, key.label, ...entries.map(([, v]) => v)];
  const placeholders = values.map((_, index) => `$${index + 1}`).join(', ');
  const result = await db.query<ApiKeyRow>(`INSERT INTO api_keys (${columns.join(', ')}) VALUES (${placeholders}) RETURNING *`, values);
  return toApiKeyRecord(result.rows[0] as ApiKeyRow);
}

/** Any key, deleted or not: authentication decides what a deleted key means. */
export async function findKeyByLookupId(db: Queryable, lookupId: string): Promise<ApiKeyRecord | undefined> {
  const result = await db.query<ApiKeyRow>('SELECT * FROM api_keys WHERE lookup_id = $1', [lookupId]);
  const row = result.rows[0];
  return row ? toApiKeyRecord(row) : undefined;
}

/** A live key of the account that `/keys` may manage (provisioning keys are not manageable there). */
export async function findManagedKey(db: Queryable, accountId: string, id: string): Promise<ApiKeyRecord | undefined> {
  if (!isUuid(id)) return undefined;
  const result = await db.query<ApiKeyRow>(`SELECT * FROM api_keys WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL AND kind <> 'provisioning'`, [id, accountId]);
  const row = result.rows[0];
  return row ? toApiKeyRecord(row) : undefined;
}

/** `managed`: what `/keys` may touch (not provisioning keys). `operator`: the CLI, which may touch any key. */
export type KeyScope = 'managed' | 'operator';
const scopeFilter = (scope: KeyScope): string => (scope === 'managed' ? "AND kind <> 'provisioning'" : '');

export type KeyListOptions = { limit: number; offset: number; kinds?: KeyKind[] };

export async function listKeys(db: Queryable, accountId: string, options: KeyListOptions): Promise<{ keys: ApiKeyRecord[]; hasMore: boolean }> {
  const kinds = options.kinds ?? ['model', 'agent'];
  const result = await db.query<ApiKeyRow>(
    `SELECT * FROM api_keys WHERE account_id = $1 AND deleted_at IS NULL AND kind = ANY($2::text[])
     ORDER BY position LIMIT $3 OFFSET $4`,
    [accountId, kinds, options.limit + 1, options.offset],
  );
  const rows = result.rows.map(toApiKeyRecord);
  return { keys: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}

/**
 * Changes only the given fields in one UPDATE, so concurrent PATCHes of different
 * fields both land, and announces the change in the same transaction.
 */
export async function updateKey(db: Database, accountId: string, id: string, settings: KeySettings, scope: KeyScope = 'managed'): Promise<{ record: ApiKeyRecord; changeId: string } | undefined> {
  if (!isUuid(id)) return undefined;
  const entries = Object.entries(settings).filter(([, value]) => value !== undefined) as Array<[keyof KeySettings, unknown]>;
  const assignments = entries.map(([field], index) => `${COLUMN_OF[field]} = $${index + 3}`);
  return db.transaction(async (tx) => {
    const result = await tx.query<ApiKeyRow>(
      `UPDATE api_keys SET ${[...assignments, 'updated_at = now()'].join(', ')}
       WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL ${scopeFilter(scope)} RETURNING *`,
      [id, accountId, ...entries.map(([, value]) => value)],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    const changeId = randomUUID();
    await tx.query('SELECT pg_notify($1, $2)', [KEY_CHANGES_CHANNEL, keyChangePayload(row.lookup_id, changeId)]);
    return { record: toApiKeyRecord(row), changeId };
  });
}

/** Soft delete: usage rows keep pointing at the key; the key itself never works again. */
export async function deleteKey(db: Database, accountId: string, id: string, scope: KeyScope = 'managed'): Promise<{ lookupId: string; changeId: string } | undefined> {
  if (!isUuid(id)) return undefined;
  return db.transaction(async (tx) => {
    const result = await tx.query<{ lookup_id: string }>(
      `UPDATE api_keys SET deleted_at = now(), disabled = true, updated_at = now()
       WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL ${scopeFilter(scope)} RETURNING lookup_id`,
      [id, accountId],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    const changeId = randomUUID();
    await tx.query('SELECT pg_notify($1, $2)', [KEY_CHANGES_CHANNEL, keyChangePayload(row.lookup_id, changeId)]);
    return { lookupId: row.lookup_id, changeId };
  });
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);
