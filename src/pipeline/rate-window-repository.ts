import type { Queryable } from '../store/database.ts';

export type SlotGrant = {
  /** Slots this call took (0: the window is full). */
  granted: number;
  /** Slots of the window handed out so far, to every process. */
  used: number;
  msLeft: number;
  /** The window's end on the database's clock (epoch ms): tells one window from the next. */
  windowEnd: number;
};

/**
 * Takes request slots from a key's shared window in one statement: one slot while fewer
 * than 128 remain, else 1/64 of what remains (at most 256), so a process holds few slots
 * the others cannot use. A window opens at its first take and lasts a minute on the
 * database's clock, the one clock every host shares.
 */
const TAKE_SQL = `INSERT INTO key_rate_windows AS w (key_id, rpm, ends_at, used, granted)
VALUES ($1, $2, now() + interval '1 minute', LEAST(256, GREATEST(1, $2 / 64)), LEAST(256, GREATEST(1, $2 / 64)))
ON CONFLICT (key_id, rpm) DO UPDATE SET
  granted = CASE WHEN w.ends_at <= now() THEN excluded.granted ELSE LEAST(256, GREATEST(1, ($2 - w.used) / 64), $2 - w.used) END,
  used = CASE WHEN w.ends_at <= now() THEN excluded.used ELSE w.used + LEAST(256, GREATEST(1, ($2 - w.used) / 64), $2 - w.used) END,
  ends_at = CASE WHEN w.ends_at <= now() THEN excluded.ends_at ELSE w.ends_at END
RETURNING granted, used, ceil(extract(epoch FROM ends_at - now()) * 1000)::int8 AS ms_left, floor(extract(epoch FROM ends_at) * 1000)::int8 AS window_end`;

export async function takeRateSlots(db: Queryable, keyId: string, rpm: number): Promise<SlotGrant> {
  const result = await db.query<{ granted: number; used: number; ms_left: number; window_end: number }>(TAKE_SQL, [keyId, rpm], { prepareAs: 'key-rate-window-take' });
  const row = result.rows[0];
  if (!row) throw new Error('key_rate_windows upsert returned no row');
  return { granted: row.granted, used: row.used, msLeft: Number(row.ms_left), windowEnd: Number(row.window_end) };
}

/** Drops windows that ended a while ago (keys deleted or limits changed leave theirs behind). */
export async function sweepRateWindows(db: Queryable): Promise<void> {
  await db.query("DELETE FROM key_rate_windows WHERE ends_at < now() - interval '1 minute'");
}
