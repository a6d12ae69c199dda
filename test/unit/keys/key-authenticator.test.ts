import { describe, expect, it } from 'vitest';
import { KeyAuthenticator } from '../../../src/keys/key-authenticator.ts';
import { generateKey } from '../../../src/keys/key-format.ts';
import { KeyHasher } from '../../../src/keys/key-hash.ts';
import type { ApiKeyRow } from '../../../src/keys/key-record.ts';
import type { Database, QueryResult } from '../../../src/store/database.ts';

/** A store whose key reads the test answers by hand, to interleave them with change notices. */
function manualStore() {
  const pending: Array<(row: ApiKeyRow) => void> = [];
  const db = {
    engine: 'pglite',
    query: <Row>() => new Promise<QueryResult<Row>>((resolve) => pending.push((row) => resolve({ rows: [row as Row], rowCount: 1 }))),
  } as unknown as Database;
  return { db, pending };
}

function keyRow(hasher: KeyHasher, key: ReturnType<typeof generateKey>, disabled: boolean): ApiKeyRow {
  const now = new Date();
  return {
    id: '00000000-0000-4000-8000-000000000001',
    account_id: '00000000-0000-4000-8000-000000000002',
    kind: 'model',
    lookup_id: key.lookupId,
    secret_hash: hasher.hash(key.secret),
    label: key.label,
    name: 'k',
    description: null,
    daily_limit_micros: null,
    monthly_limit_micros: null,
    total_limit_micros: null,
    expires_at: null,
    allowed_models: null,
    rate_limit_rpm: null,
    disabled,
    deleted_at: null,
    created_at: now,
    updated_at: now,
    last_used_at: null,
    spend_day: null,
    spend_day_micros: 0,
    spend_month: null,
    spend_month_micros: 0,
    spend_total_micros: 0,
  };
}

describe('KeyAuthenticator cache', () => {
  it('does not cache a read that a key change overtook', async () => {
    const hasher = new KeyHasher('test-secret');
    const key = generateKey('model');
    const { db, pending } = manualStore();
    const authenticator = new KeyAuthenticator(db, hasher);

    // A request reads the key; before its answer is back, the key is disabled and announced.
    const first = authenticator.authenticate(key.plain, { kinds: ['model'] });
    await Promise.resolve();
    expect(pending).toHaveLength(1);
    authenticator.forget(key.lookupId);
    pending.shift()?.(keyRow(hasher, key, false));
    await expect(first).resolves.toMatchObject({ disabled: false });

    // The next request must read again and see the change, not the stale copy.
    const second = authenticator.authenticate(key.plain, { kinds: ['model'] });
    await Promise.resolve();
    expect(pending).toHaveLength(1);
    pending.shift()?.(keyRow(hasher, key, true));
    await expect(second).rejects.toMatchObject({ code: 'key_disabled' });
  });

  it('still serves an unchanged key from memory', async () => {
    const hasher = new KeyHasher('test-secret');
    const key = generateKey('model');
    const { db, pending } = manualStore();
    const authenticator = new KeyAuthenticator(db, hasher);
    const first = authenticator.authenticate(key.plain, { kinds: ['model'] });
    await Promise.resolve();
    pending.shift()?.(keyRow(hasher, key, false));
    await first;
    await expect(authenticator.authenticate(key.plain, { kinds: ['model'] })).resolves.toMatchObject({ disabled: false });
    expect(pending).toHaveLength(0);
  });

  it('checks a repeated key without the HMAC, and still refuses another secret under the same lookup id', async () => {
    const hashed: string[] = [];
    // Counts the HMAC checks (the cost the verified-secret cache avoids).
    const hasher = new (class extends KeyHasher {
      override hash(secret: string) {
        hashed.push(secret);
        return super.hash(secret);
      }
    })('test-secret');
    const key = generateKey('model');
    const { db, pending } = manualStore();
    const authenticator = new KeyAuthenticator(db, hasher);
    const row = keyRow(hasher, key, false);
    hashed.length = 0;
    const first = authenticator.authenticate(key.plain, { kinds: ['model'] });
    await Promise.resolve();
    pending.shift()?.(row);
    await first;
    expect(hashed).toEqual([key.secret]);

    await authenticator.authenticate(key.plain, { kinds: ['model'] });
    expect(hashed).toHaveLength(1);

    // Same lookup id, last character of the secret changed: the HMAC runs and refuses it.
    const forged = key.plain.slice(0, -1) + (key.plain.endsWith('A') ? 'B' : 'A');
    await expect(authenticator.authenticate(forged, { kinds: ['model'] })).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(hashed).toHaveLength(2);
    // The forged attempt did not displace the genuine secret.
    await authenticator.authenticate(key.plain, { kinds: ['model'] });
    expect(hashed).toHaveLength(2);

    // A change drops the record and what was verified with it: the next request reads and checks again.
    authenticator.forget(key.lookupId);
    const afterChange = authenticator.authenticate(key.plain, { kinds: ['model'] });
    await Promise.resolve();
    pending.shift()?.(row);
    await afterChange;
    expect(hashed).toHaveLength(3);
  });
  it('checks a cached key without waiting, refusing as authenticate does, and says when it must read first', async () => {
    const hasher = new KeyHasher('test-secret');
    const key = generateKey('model');
    const { db, pending } = manualStore();
    const authenticator = new KeyAuthenticator(db, hasher);
    expect(authenticator.authenticateCached(key.plain, { kinds: ['model'] })).toBeUndefined();
    expect(pending).toHaveLength(0);
    expect(() => authenticator.authenticateCached(undefined, { kinds: ['model'] })).toThrow(expect.objectContaining({ code: 'invalid_api_key' }));
    expect(() => authenticator.authenticateCached('not-a-key', { kinds: ['model'] })).toThrow(expect.objectContaining({ code: 'invalid_api_key' }));

    const first = authenticator.authenticate(key.plain, { kinds: ['model'] });
    await Promise.resolve();
    pending.shift()?.(keyRow(hasher, key, false));
    await first;
    expect(authenticator.authenticateCached(key.plain, { kinds: ['model'] })).toMatchObject({ lookupId: key.lookupId, disabled: false });
    expect(() => authenticator.authenticateCached(key.plain, { kinds: ['agent'] })).toThrow(expect.objectContaining({ code: 'wrong_key_kind' }));
    const forged = key.plain.slice(0, -4) + (key.plain.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(() => authenticator.authenticateCached(forged, { kinds: ['model'] })).toThrow(expect.objectContaining({ code: 'invalid_api_key' }));
    authenticator.forget(key.lookupId);
    expect(authenticator.authenticateCached(key.plain, { kinds: ['model'] })).toBeUndefined();
    expect(pending).toHaveLength(0);
  });
});
