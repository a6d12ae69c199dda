import type { Queryable } from '../store/database.ts';

/**
 * Counts one attempt in a subject's window of `scope` and returns the window's count so
 * far and its time left, in one statement every process shares. A window opens at its
 * first attempt and lasts `durationSeconds`; every attempt counts, refused ones too (up
 * to `points + 1`: a refusal needs no more).
 */
export async function hitAttemptWindow(db: Queryable, window: { scope: string; subjectHash: Buffer; points: number; durationSeconds: number; now: Date }): Promise<{ hits: number; msLeft: number }> {
  const result = await db.query<{ hits: number; ms_left: number }>(
    `INSERT INTO sign_in_attempt_windows AS w (scope, subject_hash, ends_at, hits)
     VALUES ($1, $2, $3::timestamptz + make_interval(secs => $5), 1)
     ON CONFLICT (scope, subject_hash) DO UPDATE SET
       hits = CASE WHEN w.ends_at <= $3::timestamptz THEN 1 ELSE LEAST(w.hits, $4) + 1 END,
       ends_at = CASE WHEN w.ends_at <= $3::timestamptz THEN excluded.ends_at ELSE w.ends_at END
     RETURNING hits, ceil(extract(epoch FROM ends_at - $3::timestamptz) * 1000)::int8 AS ms_left`,
    [window.scope, window.subjectHash, window.now, window.points, window.durationSeconds],
  );
  const row = result.rows[0];
  if (!row) throw new Error('sign_in_attempt_windows upsert returned no row');
  return { hits: row.hits, msLeft: Number(row.ms_left) };
}

/** Closes a subject's window (a right password clears the wrong ones before it). */
export async function clearAttemptWindow(db: Queryable, scope: string, subjectHash: Buffer): Promise<void> {
  await db.query('DELETE FROM sign_in_attempt_windows WHERE scope = $1 AND subject_hash = $2', [scope, subjectHash]);
}

/** Drops windows that ended: subjects are whatever guessers type, so the table would only grow. */
export async function sweepAttemptWindows(db: Queryable, now: Date): Promise<void> {
  await db.query('DELETE FROM sign_in_attempt_windows WHERE ends_at <= $1', [now]);
}
