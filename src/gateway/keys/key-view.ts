import { microsToUsd } from '../../core/money.ts';
import { utcDayNumber, utcMonthNumber } from '../../core/utc-windows.ts';
import type { ApiKeyRecord } from '../../keys/key-record.ts';

export type SpendWindows = { dayMicros: number; monthMicros: number; totalMicros: number };

/** Spend in the current UTC day and month: a counter from an earlier window counts as zero. */
export function currentSpend(record: ApiKeyRecord, now: Date): SpendWindows {
  return {
    dayMicros: record.spendDay === utcDayNumber(now) ? record.spendDayMicros : 0,
    monthMicros: record.spendMonth === utcMonthNumber(now) ? record.spendMonthMicros : 0,
    totalMicros: record.spendTotalMicros,
  };
}

export type LimitWindow = 'daily' | 'monthly' | 'total';
type Window = LimitWindow;
type WindowState = { window: Window; limitMicros: number; remainingMicros: number };

/** Each window that has a limit, with what is left of it. */
export function limitWindows(record: ApiKeyRecord, spend: SpendWindows): WindowState[] {
  const windows: WindowState[] = [];
  if (record.dailyLimitMicros !== null) {
    windows.push({ window: 'daily', limitMicros: record.dailyLimitMicros, remainingMicros: record.dailyLimitMicros - spend.dayMicros });
  }
  if (record.monthlyLimitMicros !== null) {
    windows.push({ window: 'monthly', limitMicros: record.monthlyLimitMicros, remainingMicros: record.monthlyLimitMicros - spend.monthMicros });
  }
  if (record.totalLimitMicros !== null) {
    windows.push({ window: 'total', limitMicros: record.totalLimitMicros, remainingMicros: record.totalLimitMicros - spend.totalMicros });
  }
  return windows;
}

/** The window with the least left: the one OpenRouter's single `limit` stands for. */
function tightestWindow(windows: readonly WindowState[]): WindowState | undefined {
  return windows.reduce<WindowState | undefined>((least, window) => (!least || window.remainingMicros < least.remainingMicros ? window : least), undefined);
}

/** Which window a key's `limit` shows now (and so which one a bare `limit` changes). */
export function shownLimitWindow(record: ApiKeyRecord, now: Date): LimitWindow | undefined {
  return tightestWindow(limitWindows(record, currentSpend(record, now)))?.window;
}

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
    limit_reset: tightest ? (tightest.window === 'total' ? null : tightest.window) : null,
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
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
  };
}
