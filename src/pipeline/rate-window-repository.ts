import type { Queryable } from '../store/database.ts';

export type SlotGrant = {
  /** Slots this call took (0: fewer than it needs remain). */
  granted: number;
  /** Slots of the window handed out so far, to every process. */
  used: number;
  msLeft: number;
  /** The window's end on the database's clock (epoch ms): tells one window from the next. */
  windowEnd: number;
};

/** A table of shared per-minute windows: its subject columns, then its limit column. */
type WindowTable = { name: string; subject: readonly string[]; limit: string; prepareAs: string };

/**
 * The one rule every shared window hands slots out by, in one statement: what the call
 * needs, or 1/64 of what remains when that is more (at most `cap`), never more than
 * remains, and nothing when less than it needs remains; so a process holds few slots the
 * others cannot use. A window opens at its first take and lasts a minute on the
 * database's clock, the one clock every host shares.
 */
function takeSql({ name, subject, limit }: WindowTable): string {
  const columns = [...subject, limit].join(', ');
  const at = (index: number) => `$${subject.length + index}`;
  const [limitParam, need, cap] = [`${at(1)}::int`, `${at(2)}::int`, `${at(3)}::int`];
  const grant = (remaining: string) => `CASE WHEN ${remaining} < ${need} THEN 0 ELSE LEAST(${remaining}, GREATEST(${need}, LEAST(${cap}, (${remaining}) / 64))) END`;
  return `INSERT INTO ${name} AS w (${columns}, ends_at, used, granted)
VALUES (${subject.map((_, index) => `$${index + 1}`).join(', ')}, ${limitParam}, now() + interval '1 minute', ${grant(limitParam)}, ${grant(limitParam)})
ON CONFLICT (${columns}) DO UPDATE SET
  granted = CASE WHEN w.ends_at <= now() THEN excluded.granted ELSE ${grant(`${limitParam} - w.used`)} END,
  used = CASE WHEN w.ends_at <= now() THEN excluded.used ELSE w.used + ${grant(`${limitParam} - w.used`)} END,
  ends_at = CASE WHEN w.ends_at <= now() THEN excluded.ends_at ELSE w.ends_at END
RETURNING granted, used, ceil(extract(epoch FROM ends_at - now()) * 1000)::int8 AS ms_left, floor(extract(epoch FROM ends_at) * 1000)::int8 AS window_end`;
}

const KEY_WINDOWS: WindowTable = { name: 'key_rate_windows', subject: ['key_id'], limit: 'rpm', prepareAs: 'key-rate-window-take' };
const DEPLOYMENT_WINDOWS: WindowTable = { name: 'deployment_rate_windows', subject: ['deployment', 'measure'], limit: 'per_minute', prepareAs: 'deployment-rate-window-take' };
const KEY_TAKE_SQL = takeSql(KEY_WINDOWS);
const DEPLOYMENT_TAKE_SQL = takeSql(DEPLOYMENT_WINDOWS);

/** Request slots handed out at most this many at a time, so a high limit is not held by one process. */
const REQUEST_SLICE_CAP = 256;
const NO_CAP = 2 ** 31 - 1;

export type DeploymentMeasure = 'requests' | 'tokens';

async function take(db: Queryable, table: WindowTable, sql: string, params: readonly unknown[]): Promise<SlotGrant> {
  const result = await db.query<{ granted: number; used: number; ms_left: number; window_end: number }>(sql, params, { prepareAs: table.prepareAs });
  const row = result.rows[0];
  if (!row) throw new Error(`${table.name} upsert returned no row`);
  return { granted: row.granted, used: row.used, msLeft: Number(row.ms_left), windowEnd: Number(row.window_end) };
}

/** One request slot (or a slice of them) from a key's window. */
export const takeRateSlots = (db: Queryable, keyId: string, rpm: number): Promise<SlotGrant> => take(db, KEY_WINDOWS, KEY_TAKE_SQL, [keyId, rpm, 1, REQUEST_SLICE_CAP]);

/** `need` requests or tokens (or a slice of them) from a deployment's window. */
export const takeDeploymentSlots = (db: Queryable, deployment: string, measure: DeploymentMeasure, perMinute: number, need: number): Promise<SlotGrant> =>
  take(db, DEPLOYMENT_WINDOWS, DEPLOYMENT_TAKE_SQL, [deployment, measure, perMinute, need, measure === 'requests' ? REQUEST_SLICE_CAP : NO_CAP]);

/** Drops key windows that ended a while ago (keys deleted or limits changed leave theirs behind). */
export async function sweepRateWindows(db: Queryable): Promise<void> {
  await db.query("DELETE FROM key_rate_windows WHERE ends_at < now() - interval '1 minute'");
}

/** Drops deployment windows that ended a while ago (deployments renamed or limits changed leave theirs behind). */
export async function sweepDeploymentWindows(db: Queryable): Promise<void> {
  await db.query("DELETE FROM deployment_rate_windows WHERE ends_at < now() - interval '1 minute'");
}
