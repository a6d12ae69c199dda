import type { KeyKind } from './key-kind.ts';

/** An API key as the service sees it (camelCase; the row is converted at the repository edge). */
export type ApiKeyRecord = {
  id: string;
  accountId: string;
  kind: KeyKind;
  lookupId: string;
  secretHash: Uint8Array;
  label: string;
  name: string;
  description: string | null;
  dailyLimitMicros: number | null;
  monthlyLimitMicros: number | null;
  totalLimitMicros: number | null;
  expiresAt: Date | null;
  allowedModels: string[] | null;
  rateLimitRpm: number | null;
  /** Every call of the key opts into the response cache for this long (null: only calls that ask). */
  cacheTtlSeconds: number | null;
  disabled: boolean;
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
  spendDay: number | null;
  spendDayMicros: number;
  spendMonth: number | null;
  spendMonthMicros: number;
  spendTotalMicros: number;
};

export type ApiKeyRow = {
  id: string;
  account_id: string;
  kind: KeyKind;
  lookup_id: string;
  secret_hash: Uint8Array;
  label: string;
  name: string;
  description: string | null;
  daily_limit_micros: number | null;
  monthly_limit_micros: number | null;
  total_limit_micros: number | null;
  expires_at: Date | null;
  allowed_models: string[] | null;
  rate_limit_rpm: number | null;
  /** Absent on a row read before migration 0029 ran. */
  cache_ttl_seconds?: number | null;
  disabled: boolean;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
  spend_day: number | null;
  spend_day_micros: number;
  spend_month: number | null;
  spend_month_micros: number;
  spend_total_micros: number;
};

export const toApiKeyRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  kind: row.kind,
  lookupId: row.lookup_id,
  secretHash: row.secret_hash,
  label: row.label,
  name: row.name,
  description: row.description,
  dailyLimitMicros: row.daily_limit_micros,
  monthlyLimitMicros: row.monthly_limit_micros,
  totalLimitMicros: row.total_limit_micros,
  expiresAt: row.expires_at,
  allowedModels: row.allowed_models,
  rateLimitRpm: row.rate_limit_rpm,
  cacheTtlSeconds: row.cache_ttl_seconds ?? null,
  disabled: row.disabled,
  deletedAt: row.deleted_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastUsedAt: row.last_used_at,
  spendDay: row.spend_day,
  spendDayMicros: row.spend_day_micros,
  spendMonth: row.spend_month,
  spendMonthMicros: row.spend_month_micros,
  spendTotalMicros: row.spend_total_micros,
});

/** The fields a caller may set on create or change on PATCH (undefined = not given, null = clear). */
export type KeySettings = {
  name?: string;
  description?: string | null;
  dailyLimitMicros?: number | null;
  monthlyLimitMicros?: number | null;
  totalLimitMicros?: number | null;
  expiresAt?: Date | null;
  allowedModels?: string[] | null;
  rateLimitRpm?: number | null;
  cacheTtlSeconds?: number | null;
  disabled?: boolean;
};
