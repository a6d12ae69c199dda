import type { Database } from '../store/database.ts';
import type { KeyHasher } from '../keys/key-hash.ts';
import type { ApiKeyRecord } from '../keys/key-record.ts';
import { createKey } from '../keys/key-service.ts';
import { findKeyByLookupId } from '../keys/key-repository.ts';

/**
 * The agent key a person's playground runs are billed and stored under: one per user
 * and account, made on first use, listed with the account's agent keys (so spend is
 * attributed, and an owner can revoke it). Its plain key is never shown to anyone: the
 * playground authenticates with the session, not with this key.
 */
export async function playgroundKeyFor(db: Database, hasher: KeyHasher, accountId: string, user: { email: string }): Promise<ApiKeyRecord> {
  const name = `Console playground (${user.email})`;
  const existing = await db.query<{ lookup_id: string }>(
    "SELECT lookup_id FROM api_keys WHERE account_id = $1 AND kind = 'agent' AND name = $2 AND deleted_at IS NULL ORDER BY created_at LIMIT 1",
    [accountId, name],
  );
  const lookupId = existing.rows[0]?.lookup_id;
  const found = lookupId ? await findKeyByLookupId(db, lookupId) : undefined;
  if (found) return found;
  const created = await createKey(db, hasher, { accountId, kind: 'agent', settings: { name, description: 'Runs from the console playground; used through the session only.' } });
  return created.record;
}
