import type { Database } from '../store/database.ts';
import type { KeyHasher } from '../keys/key-hash.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import { createKey } from '../keys/key-service.ts';
import { deleteKey, findKeyByLookupId } from '../keys/key-repository.ts';

/**
 * The agent key a person's playground runs are billed and stored under: one per user
 * and account, made on first use, listed with the account's agent keys (so spend is
 * attributed, and an owner can revoke it). Its plain key is never shown to anyone: the
 * playground authenticates with the session, not with this key.
 *
 * The key is bound to (account, user) in `playground_keys`, never found by its name: any
 * admin can create a key with the same name, and it must stay just a key.
 */
export async function playgroundKeyFor(db: Database, hasher: KeyHasher, accountId: string, user: { id: string; email: string }): Promise<ApiKeyRecord> {
  const bound = await boundKey(db, accountId, user.id);
  if (bound && bound.deletedAt === null) return bound;
  const created = await createKey(db, hasher, {
    accountId,
    kind: 'agent',
    settings: { name: `Console playground (${user.email})`, description: 'Runs from the console playground; used through the session only.' },
  });
  // A revoked binding is replaced; of two first uses at once, the first binding wins and the other key is dropped.
  const result = await db.query<{ key_id: string }>(
    `INSERT INTO playground_keys (account_id, user_id, key_id) VALUES ($1, $2, $3)
     ON CONFLICT (account_id, user_id) DO UPDATE SET key_id = EXCLUDED.key_id, created_at = now()
       WHERE playground_keys.key_id IN (SELECT id FROM api_keys WHERE deleted_at IS NOT NULL)
     RETURNING key_id`,
    [accountId, user.id, created.record.id],
  );
  if (result.rows[0]) return created.record;
  await deleteKey(db, accountId, created.record.id);
  const winner = await boundKey(db, accountId, user.id);
  if (!winner) throw new Error('playground key binding vanished while it was being made');
  return winner;
}

async function boundKey(db: Database, accountId: string, userId: string): Promise<ApiKeyRecord | undefined> {
  const result = await db.query<{ lookup_id: string }>('SELECT k.lookup_id FROM playground_keys p JOIN api_keys k ON k.id = p.key_id WHERE p.account_id = $1 AND p.user_id = $2', [accountId, userId]);
  const lookupId = result.rows[0]?.lookup_id;
  return lookupId ? findKeyByLookupId(db, lookupId) : undefined;
}
