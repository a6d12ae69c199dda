import type { Database, Queryable } from '../store/database.ts';

/**
 * The usage log's monthly partitions (migrations/0032_usage_log_partitions.sql): months
 * created ahead so a month's rows never land in the default partition, and, with a
 * retention, whole months older than it detached and dropped. The daily rollups are
 * another table: the Overview's totals outlive the rows.
 */

/** Months created after the current one (UTC): a missed sweep or two never sends rows to the default. */
export const MONTHS_AHEAD = 2;

/** The partition that takes a row no month holds, so an insert never fails. */
export const DEFAULT_PARTITION = 'usage_log_default';

const MONTH_NAME = /^usage_log_y(\d{4})m(\d{2})$/;
const DAY_MS = 86_400_000;
// Any fixed number: one upkeep at a time across the processes of one database.
const UPKEEP_LOCK = 7_320_032;

/** One month of the log: its partition's name and the half-open UTC range it holds. */
export type MonthPartition = { name: string; from: Date; to: Date };

/** The month that `at` falls in (UTC), `offset` months later. */
export function monthPartition(at: Date, offset = 0): MonthPartition {
  const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
  const to = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
  const month = String(from.getUTCMonth() + 1).padStart(2, '0');
  return { name: `usage_log_y${from.getUTCFullYear()}m${month}`, from, to };
}

/** The month a partition's name stands for; undefined for the default or a table not named by this module. */
function monthNamed(name: string): MonthPartition | undefined {
  const match = MONTH_NAME.exec(name);
  if (!match) return undefined;
  return monthPartition(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1)));
}

/** Whether a unique violation is of the log's key (id, created_at): the parent's, or its copy on a partition, which PostgreSQL names. */
export function isUsageLogKey(constraint: unknown): boolean {
  if (typeof constraint !== 'string' || !constraint.endsWith('_pkey')) return false;
  const table = constraint.slice(0, -'_pkey'.length);
  return table === 'usage_log' || table === DEFAULT_PARTITION || MONTH_NAME.test(table);
}

/** The log's partitions now, by name. */
export async function usagePartitions(db: Queryable): Promise<string[]> {
  const result = await db.query<{ name: string }>(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'usage_log'::regclass ORDER BY 1`);
  return result.rows.map((row) => row.name);
}

/** The month partitions of the log, oldest first. */
export async function usageMonths(db: Queryable): Promise<MonthPartition[]> {
  return (await usagePartitions(db)).flatMap((name) => monthNamed(name) ?? []);
}

export type UpkeepResult = { created: string[]; dropped: string[]; defaultRowsDeleted: number };

/**
 * Creates this month's partition and the next MONTHS_AHEAD, and, with `retentionDays`, drops
 * every month that ended that many days before `now` and deletes the default partition's
 * rows older than that. Another process's upkeep under way: this one does nothing (the next
 * sweep looks again). A lock it cannot take within a few seconds fails it the same way,
 * instead of queueing the log's writers behind it.
 */
export async function keepUsagePartitions(db: Database, now: Date, retentionDays: number | undefined): Promise<UpkeepResult> {
  const result: UpkeepResult = { created: [], dropped: [], defaultRowsDeleted: 0 };
  const wanted = Array.from({ length: MONTHS_AHEAD + 1 }, (_, offset) => monthPartition(now, offset));
  const existing = new Set(await usagePartitions(db));
  const cutoff = retentionDays === undefined ? undefined : new Date(now.getTime() - retentionDays * DAY_MS);
  const expired = cutoff === undefined ? [] : (await usageMonths(db)).filter((month) => month.to.getTime() <= cutoff.getTime());
  const missing = wanted.filter((month) => !existing.has(month.name));
  if (missing.length === 0 && expired.length === 0 && cutoff === undefined) return result;
  await db.transaction(async (tx) => {
    const locked = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [UPKEEP_LOCK]);
    if (!locked.rows[0]?.locked) return;
    await tx.query("SET LOCAL lock_timeout = '5s'");
    const present = new Set(await usagePartitions(tx));
    for (const month of missing) {
      if (present.has(month.name)) continue;
      await createMonth(tx, month);
      result.created.push(month.name);
    }
    for (const month of expired) {
      if (!present.has(month.name)) continue;
      await tx.query(`ALTER TABLE usage_log DETACH PARTITION ${month.name}`);
      await tx.query(`DROP TABLE ${month.name}`);
      result.dropped.push(month.name);
    }
    if (cutoff !== undefined) {
      const deleted = await tx.query(`DELETE FROM ${DEFAULT_PARTITION} WHERE created_at < $1`, [cutoff]);
      result.defaultRowsDeleted = deleted.rowCount;
    }
  });
  return result;
}

/**
 * A month's partition, with the rows the default partition took for that month moved into
 * it (a month that came while no process kept the log): attached, not created as a
 * partition, so the log's readers and writers are not locked out while it is added.
 * The move adds nothing to the rollups: their trigger is on the log, not on this table.
 */
async function createMonth(tx: Queryable, month: MonthPartition): Promise<void> {
  await tx.query(`CREATE TABLE ${month.name} (LIKE usage_log INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
  await tx.query(
    `WITH moved AS (DELETE FROM ${DEFAULT_PARTITION} WHERE created_at >= $1 AND created_at < $2 RETURNING *)
     INSERT INTO ${month.name} SELECT * FROM moved`,
    [month.from, month.to],
  );
  await tx.query(`ALTER TABLE usage_log ATTACH PARTITION ${month.name} FOR VALUES FROM ('${month.from.toISOString()}') TO ('${month.to.toISOString()}')`);
}

/** JUNCTION_USAGE_RETENTION_DAYS: how many days usage rows are kept at least; unset, for ever. */
export function usageRetentionDays(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env.JUNCTION_USAGE_RETENTION_DAYS;
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 36_500) throw new Error('JUNCTION_USAGE_RETENTION_DAYS must be a whole number of days between 1 and 36500');
  return value;
}
