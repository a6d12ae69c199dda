import type { Queryable } from '../store/database.ts';

/** Whether an account's run steps keep their content (prompts, answers, arguments, results) or metadata only. */
export const RUN_CONTENT_MODES = ['content', 'metadata'] as const;
export type RunContentMode = (typeof RUN_CONTENT_MODES)[number];

export async function runContentMode(db: Queryable, accountId: string): Promise<RunContentMode> {
  const result = await db.query<{ run_step_content: RunContentMode }>('SELECT run_step_content FROM accounts WHERE id = $1', [accountId]);
  return result.rows[0]?.run_step_content ?? 'content';
}

/** Switching to metadata only also clears the content already kept: nothing private stays behind. */
export async function setRunContentMode(db: Queryable, accountId: string, mode: RunContentMode): Promise<void> {
  await db.query('UPDATE accounts SET run_step_content = $2 WHERE id = $1', [accountId, mode]);
  if (mode === 'metadata') await db.query('UPDATE run_steps SET content = NULL WHERE account_id = $1 AND content IS NOT NULL', [accountId]);
}
