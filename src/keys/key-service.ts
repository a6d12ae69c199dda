import type { Database } from '../store/database.ts';
import { generateKey } from './key-format.ts';
import type { KeyKind } from './key-kind.ts';
import type { KeyHasher } from './key-hash.ts';
import type { ApiKeyRecord, KeySettings } from './key-record.ts';
import { insertKey } from './key-repository.ts';

export type CreatedKey = { record: ApiKeyRecord; plainKey: string };

/** Creates keys; the plain key exists only in the return value, never in storage or logs. */
export async function createKey(db: Database, hasher: KeyHasher, request: { accountId: string; kind: KeyKind; settings: KeySettings & { name: string } }): Promise<CreatedKey> {
  const generated = generateKey(request.kind);
  const record = await insertKey(db, {
    accountId: request.accountId,
    kind: request.kind,
    lookupId: generated.lookupId,
    secretHash: hasher.hash(generated.secret),
    label: generated.label,
    settings: request.settings,
  });
  return { record, plainKey: generated.plain };
}
