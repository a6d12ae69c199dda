import { ACCOUNT_ACKS_CHANNEL, ACCOUNT_CHANGES_CHANNEL } from '../accounts/account-repository.ts';
import { ChangeSync } from '../store/change-sync.ts';
import { type Database, LOST_NOTIFICATIONS } from '../store/database.ts';
import type { ProcessRegistration } from '../store/process-registry.ts';

/**
 * Account id → plan name, cached in memory (the plan is read on every model call). A
 * plan change is announced on ACCOUNT_CHANGES_CHANNEL and acknowledged as key changes
 * are (ChangeSync), so the command that changed it returns once every live process
 * serves the new plan.
 */
export class AccountPlans {
  readonly #db: Database;
  readonly #plans = new Map<string, string>();
  readonly #changes: ChangeSync;

  constructor(db: Database, registration: ProcessRegistration | undefined) {
    this.#db = db;
    this.#changes = new ChangeSync(db, { changes: ACCOUNT_CHANGES_CHANNEL, acks: ACCOUNT_ACKS_CHANNEL }, registration, (accountId) => {
      if (accountId === LOST_NOTIFICATIONS) this.#plans.clear();
      else this.#plans.delete(accountId);
    });
  }

  async start(): Promise<void> {
    await this.#changes.start();
  }

  async stop(): Promise<void> {
    await this.#changes.stop();
  }

  /**
   * After this process changed an account's plan (change `changeId`): drops its own
   * cached copy at once and resolves once every other live process has dropped theirs.
   */
  async changed(accountId: string, changeId: string): Promise<boolean> {
    this.#changes.changedHere(accountId);
    return this.#changes.propagated(changeId);
  }

  /** The plan when it is cached (every call after an account's first), without waiting. */
  cachedPlanOf(accountId: string): string | undefined {
    return this.#plans.get(accountId);
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
