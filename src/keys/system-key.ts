import type { ApiKeyRecord } from './key-record.ts';

/**
 * The caller for work an operator starts on an account's behalf (knowledge indexing
 * from the CLI): no key limits, no rate limit, billed to the account's credit, logged
 * with no key id. It is never stored and cannot authenticate anything.
 */
export function systemKeyFor(accountId: string, now: Date): ApiKeyRecord {
  return {
    id: '',
    accountId,
    kind: 'model',
    lookupId: '',
    secretHash: new Uint8Array(),
    label: 'system',
    name: 'system',
    description: null,
    dailyLimitMicros: null,
    monthlyLimitMicros: null,
    totalLimitMicros: null,
    expiresAt: null,
    allowedModels: null,
    rateLimitRpm: null,
    cacheTtlSeconds: null,
    disabled: false,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
    lastUsedAt: null,
    spendDay: null,
    spendDayMicros: 0,
    spendMonth: null,
    spendMonthMicros: 0,
    spendTotalMicros: 0,
  };
}
