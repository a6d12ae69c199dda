import { microsToUsd } from '../../core/money.ts';
import type { ApiKeyRecord } from '../../keys/key-record.ts';
import { currentSpend, limitWindows, tightestWindow } from '../../keys/key-spend-windows.ts';

const usdOrNull = (micros: number | null): number | null => (micros === null ? null : microsToUsd(micros));

/**
 * A key as `/keys` and `/key` show it: Junction's fields plus the names OpenRouter's
 * key API uses, so clients written for it work unchanged. OpenRouter has one `limit`
 * with a reset period; Junction has three windows, so `limit`, `limit_remaining` and
 * `limit_reset` describe whichever window has the least left.
 */
export function toKeyObject(record: ApiKeyRecord, now: Date): Record<string, unknown> {
  const spend = currentSpend(record, now);
  const windows = limitWindows(record, spend);
  const tightest = tightestWindow(windows);
  const exceeded = windows.find((window) => window.remainingMicros <= 0)?.window ?? null;
  const expired = record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime();
  return {
    id: record.id,
    hash: record.id,
    kind: record.kind,
    name: record.name,
    label: record.label,
    description: record.description,
    disabled: record.disabled,
    expired,
    limit_exceeded: exceeded,
    daily_limit_usd: usdOrNull(record.dailyLimitMicros),
    monthly_limit_usd: usdOrNull(record.monthlyLimitMicros),
    total_limit_usd: usdOrNull(record.totalLimitMicros),
    limit: tightest ? microsToUsd(tightest.limitMicros) : null,
    limit_remaining: tightest ? microsToUsd(Math.max(0, tightest.remainingMicros)) : null,
    limit_reset: tightest && tightest.window !== 'total' ? tightest.window : null,
    usage: microsToUsd(spend.totalMicros),
    usage_daily: microsToUsd(spend.dayMicros),
    usage_monthly: microsToUsd(spend.monthMicros),
    spend: {
      day_usd: microsToUsd(spend.dayMicros),
      month_usd: microsToUsd(spend.monthMicros),
      lifetime_usd: microsToUsd(spend.totalMicros),
    },
    expires_at: record.expiresAt?.toISOString() ?? null,
    allowed_models: record.allowedModels,
    rate_limit_rpm: record.rateLimitRpm,
    cache_ttl_seconds: record.cacheTtlSeconds,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
  };
}
