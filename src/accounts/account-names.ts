import type { Queryable } from '../store/database.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A reference that named no account is looked up again after this long (the account may be created meanwhile). */
const MISS_TTL_MS = 2_000;

/**
 * Which account an agent file's `account:` names (an id, or a name). Found accounts are
 * held in memory, so the request path costs no database trip; a miss is asked of the
 * database again after a short while. A name held by several accounts names none.
 */
export class AccountNames {
  readonly #db: Queryable;
  readonly #found = new Map<string, string>();
  readonly #missedAt = new Map<string, number>();

  constructor(db: Queryable) {
    this.#db = db;
  }

  async resolve(reference: string): Promise<string | undefined> {
    const found = this.#found.get(reference);
    if (found) return found;
    const missedAt = this.#missedAt.get(reference);
    if (missedAt !== undefined && Date.now() - missedAt < MISS_TTL_MS) return undefined;
    const result = UUID.test(reference)
      ? await this.#db.query<{ id: string }>('SELECT id FROM accounts WHERE id = $1', [reference.toLowerCase()])
      : await this.#db.query<{ id: string }>('SELECT id FROM accounts WHERE name = $1 LIMIT 2', [reference]);
    const id = result.rows.length === 1 ? result.rows[0]?.id : undefined;
    if (id) this.#found.set(reference, id);
    else this.#missedAt.set(reference, Date.now());
    return id;
  }
}
