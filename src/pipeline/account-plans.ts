import { ACCOUNT_CHANGES_CHANNEL } from '../accounts/account-repository.ts';
import { type Database, LOST_NOTIFICATIONS } from '../store/database.ts';

/**
 * Account id → plan name, cached in memory (the plan is read on every model call).
 * A plan change is announced on ACCOUNT_CHANGES_CHANNEL and drops the cached entry.
 */
export class AccountPlans {
  readonly #db: Database;
  readonly #plans = new Map<string, string>();
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(db: Database) {
    this.#db = db;
  }

  async start(): Promise<void> {
    this.#unsubscribe = await this.#db.listen(ACCOUNT_CHANGES_CHANNEL, (accountId) => {
      if (accountId === LOST_NOTIFICATIONS) this.#plans.clear();
      else this.#plans.delete(accountId);
    });
  }

  async stop(): Promise<void> {
    await this.#unsubscribe?.();
  }

  /** Drops one cached plan (the process that changed it does so at once; others on NOTIFY). */
  forget(accountId: string): void {
    this.#plans.delete(accountId);
  }

  async planOf(accountId: string): Promise<string> {
    const cached = this.#plans.get(accountId);
    if (cached) return cached;
    const result = await this.#db.query<{ plan: string }>('SELECT plan FROM accounts WHERE id = $1', [accountId]);
    const plan = result.rows[0]?.plan ?? 'default';
    this.#plans.set(accountId, plan);
    return plan;
  }
}
