import type { BinaryColumnType } from '../store/binary-records.ts';
import type { Queryable } from '../store/database.ts';
import { USAGE_COLUMNS } from './usage-record.ts';

/**
 * The usage_row type (migration 0012) a settlement batch sends its usage rows as: its
 * columns' types in USAGE_COLUMNS' order, and its type id in a database.
 */
const TYPES_BY_COLUMN: Record<(typeof USAGE_COLUMNS)[number], BinaryColumnType> = {
  id: 'text',
  account_id: 'uuid',
  key_id: 'uuid',
  request_id: 'text',
  endpoint: 'text',
  requested_model: 'text',
  model: 'text',
  provider: 'text',
  upstream_model: 'text',
  status: 'text',
  http_status: 'integer',
  error_code: 'text',
  input_tokens: 'integer',
  output_tokens: 'integer',
  cached_input_tokens: 'integer',
  reasoning_tokens: 'integer',
  units: 'jsonb',
  cost_micros: 'bigint',
  latency_ms: 'integer',
  attempts: 'integer',
  streamed: 'boolean',
  agent_id: 'text',
  agent_run_id: 'text',
  agent_version: 'text',
  created_at: 'timestamptz',
  cache_write_tokens: 'integer',
  cache_hit: 'boolean',
};

export const USAGE_ROW_TYPES: readonly BinaryColumnType[] = USAGE_COLUMNS.map((column) => TYPES_BY_COLUMN[column]);

/**
 * Asked once per database: a binary array names its element type by id, which each
 * database assigns its own. The id stays until usageRowTypeChanged finds it stale.
 */
const typeOids = new WeakMap<Queryable, Promise<number>>();

export function usageRowTypeOid(db: Queryable): Promise<number> {
  let oid = typeOids.get(db);
  if (oid === undefined) {
    oid = db.query<{ oid: number }>(`SELECT 'usage_row'::regtype::oid::integer AS oid`).then((result) => Number(result.rows[0]?.oid));
    // A failed lookup (the database unreachable) is asked again by the next batch.
    oid.catch(() => typeOids.delete(db));
    typeOids.set(db, oid);
  }
  return oid;
}

/**
 * Whether `usedOid` is no longer usage_row's id: a schema dropped and restored under a
 * running server makes the type again with a new id, and every batch sent with the old
 * one fails ("wrong element type", or "cache lookup failed" from a statement prepared
 * with it). Asked only after a batch failed; the next usageRowTypeOid reads the new id.
 * A lookup that fails (the database unreachable) answers false: the batch's own error stands.
 */
export async function usageRowTypeChanged(db: Queryable, usedOid: number): Promise<boolean> {
  typeOids.delete(db);
  try {
    return (await usageRowTypeOid(db)) !== usedOid;
  } catch {
    return false;
  }
}
