import { JunctionError } from '../core/errors.ts';
import { type Database, LOST_NOTIFICATIONS } from '../store/database.ts';
import { parseKey } from './key-format.ts';
import type { KeyKind } from './key-kind.ts';
import type { KeyHasher } from './key-hash.ts';
import type { ApiKeyRecord } from './key-record.ts';
import { findKeyByLookupId } from './key-repository.ts';
import { VerifiedSecrets } from './verified-secrets.ts';

export type AuthenticateOptions = {
  /** Key kinds this endpoint family serves; any other valid key gets 403 wrong_key_kind. */
  kinds: readonly KeyKind[];
  /** `GET /key` reports an expired or disabled key's state instead of refusing it. */
  allowInactive?: boolean;
};

const KIND_HINT: Record<KeyKind, string> = {
  model: 'model keys (sk-jn-…)',
  provisioning: 'provisioning keys (pk-jn-…)',
  agent: 'agent keys (sk-…)',
};

/**
 * Finds and checks the key of a request. Keys are cached in memory by lookup id, so
 * the hot path makes no database round trip; KeyChangeSync drops the cached copy in
 * every process sharing the database before a change is reported done.
 */
export class KeyAuthenticator {
  readonly #db: Database;
  readonly #hasher: KeyHasher;
  readonly #cache = new Map<string, ApiKeyRecord>();
  readonly #verified = new VerifiedSecrets<ApiKeyRecord>();
  readonly #now: () => Date;
  /** Bumped by every forget(): a read that began before a change must not be cached after it. */
  #generation = 0;

  constructor(db: Database, hasher: KeyHasher, now: () => Date = () => new Date()) {
    this.#db = db;
    this.#hasher = hasher;
    this.#now = now;
  }

  /** Drops a cached key (called by KeyChangeSync on every announced change); `*` drops all. */
  forget(lookupId: string): void {
    this.#generation += 1;
    if (lookupId === LOST_NOTIFICATIONS) this.#cache.clear();
    else this.#cache.delete(lookupId);
  }

  async authenticate(plainKey: string | undefined, options: AuthenticateOptions): Promise<ApiKeyRecord> {
    const parsed = this.#parse(plainKey);
    return this.#check(parsed, await this.#lookup(parsed.lookupId), options);
  }

  /**
   * The same check without waiting, for a key already in the cache (every request after a
   * key's first): its record, or undefined when the key must be read from the database
   * first (call `authenticate`). Refusals throw as they do there.
   */
  authenticateCached(plainKey: string | undefined, options: AuthenticateOptions): ApiKeyRecord | undefined {
    const parsed = this.#parse(plainKey);
    const cached = this.#cache.get(parsed.lookupId);
    return cached ? this.#check(parsed, cached, options) : undefined;
  }

  #parse(plainKey: string | undefined): { lookupId: string; secret: string } {
    if (!plainKey) {
      throw new JunctionError('invalid_api_key', 'No API key was given. Send it as "Authorization: Bearer <key>".');
    }
    const parsed = parseKey(plainKey);
    if (!parsed) throw invalidKey();
    return parsed;
  }

  #check(parsed: { secret: string }, record: ApiKeyRecord | undefined, options: AuthenticateOptions): ApiKeyRecord {
    if (!record || record.deletedAt || !this.#secretMatches(record, parsed.secret)) throw invalidKey();
    if (!options.kinds.includes(record.kind)) {
      const wanted = options.kinds.map((kind) => KIND_HINT[kind]).join(' or ');
      throw new JunctionError('wrong_key_kind', `This endpoint takes ${wanted}; this is ${record.kind === 'agent' ? 'an' : 'a'} ${record.kind} key.`);
    }
    if (!options.allowInactive) assertActive(record, this.#now());
    return record;
  }

  #secretMatches(record: ApiKeyRecord, secret: string): boolean {
    if (this.#verified.has(record, secret)) return true;
    if (!this.#hasher.matches(secret, record.secretHash)) return false;
    this.#verified.remember(record, secret);
    return true;
  }

  async #lookup(lookupId: string): Promise<ApiKeyRecord | undefined> {
    const cached = this.#cache.get(lookupId);
    if (cached) return cached;
    const generation = this.#generation;
    const record = await findKeyByLookupId(this.#db, lookupId);
    // A change announced while this read was in flight may postdate what it returned.
    if (record && generation === this.#generation) this.#cache.set(lookupId, record);
    return record;
  }
}

const invalidKey = (): JunctionError => new JunctionError('invalid_api_key', 'The API key is not valid. Check it, or create a new one.');

export function assertActive(record: ApiKeyRecord, now: Date): void {
  if (record.disabled) {
    throw new JunctionError('key_disabled', 'This API key is disabled. Ask an administrator to enable it.');
  }
  if (record.expiresAt && record.expiresAt.getTime() <= now.getTime()) {
    throw new JunctionError('key_expired', `This API key expired at ${record.expiresAt.toISOString()}. Create a new key or extend its expiry.`);
  }
}
