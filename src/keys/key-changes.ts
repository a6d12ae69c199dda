import { JunctionError } from '../core/errors.ts';
import type { Database } from '../store/database.ts';
import type { KeyChangeSync } from './key-change-sync.ts';
import type { CreateKeyInput, UpdateKeyInput } from './key-input-schema.ts';
import type { KeyHasher } from './key-hash.ts';
import type { KeyKind } from './key-kind.ts';
import type { ApiKeyRecord, KeySettings } from './key-record.ts';
import { findManagedKey, updateKey } from './key-repository.ts';
import { type CreatedKey, createKey } from './key-service.ts';
import { type LimitWindow, shownLimitWindow } from './key-spend-windows.ts';
import { requireOrderedLimits } from './limit-order.ts';

/**
 * The rules of creating and changing a key, in one place for every route that does it
 * (`/v1/keys` and the console): limits and OpenRouter's `limit`/`limit_reset`, expiry in
 * the future, allowlists, and which keys a caller may change. Routes parse the wire
 * shape (key-input-schema.ts) and call these; they restate none of it.
 */
export type KeyChangeDeps = { db: Database; hasher: KeyHasher; keyChanges: KeyChangeSync };

export const keyNotFound = (id: string, kind?: KeyKind) => new JunctionError('not_found', `No ${kind ? `${kind} ` : ''}key with id '${id}' in this account.`);

/** Refuses fields a create may not carry, with the reason (the strict schema would only call them unknown). */
export function refuseCreateOnlyFields(body: unknown): void {
  if (body && typeof body === 'object' && 'disabled' in body) {
    throw new JunctionError('invalid_request', "'disabled' cannot be set when creating a key; PATCH it afterwards.", { param: 'disabled' });
  }
}

/** A new key must not be born expired. */
export function requireFutureExpiry(expiresAt: Date | null | undefined, now: Date): void {
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw new JunctionError('invalid_request', "'expires_at' must be in the future.", { param: 'expires_at' });
  }
}

/**
 * Wire fields → KeySettings. `undefined` means "not sent" (kept on PATCH), `null`
 * means "clear". OpenRouter's `limit` lands in the window its `limit_reset` names;
 * without one, in `currentWindow`: on PATCH the window the key's `limit` shows now
 * (`{"limit": 7}` raises a monthly limit, not adds a total one), on create the total.
 */
export function toKeySettings(input: UpdateKeyInput, currentWindow: LimitWindow = 'total'): KeySettings {
  const settings: KeySettings = {
    name: input.name,
    description: input.description,
    dailyLimitMicros: input.daily_limit_usd,
    monthlyLimitMicros: input.monthly_limit_usd,
    totalLimitMicros: input.total_limit_usd,
    expiresAt: input.expires_at,
    allowedModels: input.allowed_models === undefined || input.allowed_models === null ? input.allowed_models : [...new Set(input.allowed_models)],
    rateLimitRpm: input.rate_limit_rpm,
    cacheTtlSeconds: input.cache_ttl_seconds,
    disabled: input.disabled,
  };
  if (input.limit !== undefined) {
    const window = input.limit_reset === undefined ? currentWindow : (input.limit_reset ?? 'total');
    const field = LIMIT_FIELD[window];
    if (settings[field.setting] !== undefined) {
      throw new JunctionError('invalid_request', `Send either 'limit' or '${field.wire}', not both.`, { param: 'limit' });
    }
    settings[field.setting] = input.limit;
  } else if (input.limit_reset !== undefined) {
    throw new JunctionError('invalid_request', "'limit_reset' only applies together with 'limit'.", { param: 'limit_reset' });
  }
  requireOrderedLimits(settings);
  return settings;
}

const LIMIT_FIELD = {
  daily: { setting: 'dailyLimitMicros', wire: 'daily_limit_usd' },
  monthly: { setting: 'monthlyLimitMicros', wire: 'monthly_limit_usd' },
  total: { setting: 'totalLimitMicros', wire: 'total_limit_usd' },
} as const satisfies Record<LimitWindow, { setting: keyof KeySettings; wire: string }>;

/** Creates a model or agent key from its parsed wire input; the plain key is only in the result. */
export async function createKeyFromInput(deps: Pick<KeyChangeDeps, 'db' | 'hasher'>, request: { accountId: string; input: CreateKeyInput; now: Date }): Promise<CreatedKey> {
  const { kind, ...fields } = request.input;
  requireFutureExpiry(fields.expires_at, request.now);
  const settings = toKeySettings(fields);
  return createKey(deps.db, deps.hasher, { accountId: request.accountId, kind, settings: { ...settings, name: fields.name } });
}

/**
 * Changes a model or agent key of the account (provisioning keys are never changed
 * through a route) and returns once every live process has dropped its cached copy.
 */
export async function changeKey(deps: Pick<KeyChangeDeps, 'db' | 'keyChanges'>, request: { accountId: string; id: string; input: UpdateKeyInput; now: Date }): Promise<ApiKeyRecord> {
  const { accountId, id, input } = request;
  let currentWindow: LimitWindow | undefined;
  if (input.limit !== undefined && input.limit_reset === undefined) {
    const key = await findManagedKey(deps.db, accountId, id);
    if (!key) throw keyNotFound(id);
    currentWindow = shownLimitWindow(key, request.now);
  }
  const updated = await updateKey(deps.db, accountId, id, toKeySettings(input, currentWindow));
  if (!updated) throw keyNotFound(id);
  await announceKeyChange(deps.keyChanges, { lookupId: updated.record.lookupId, changeId: updated.changeId });
  return updated.record;
}

/** A change counts once every live process has acknowledged it (a revoked key stops at once, everywhere). */
export async function announceKeyChange(keyChanges: KeyChangeSync, change: { lookupId: string; changeId: string }): Promise<void> {
  keyChanges.changedHere(change.lookupId);
  await keyChanges.propagated(change.changeId);
}
