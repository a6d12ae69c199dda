import { utcDayNumber, utcMonthNumber } from '../core/utc-windows.ts';
import type { ApiKeyRecord } from './key-record.ts';

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
export type WindowState = { window: LimitWindow; limitMicros: number; remainingMicros: number };

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
export function tightestWindow(windows: readonly WindowState[]): WindowState | undefined {
  return windows.reduce<WindowState | undefined>((least, window) => (!least || window.remainingMicros < least.remainingMicros ? window : least), undefined);
}

/** Which window a key's `limit` shows now (and so which one a bare `limit` changes). */
export function shownLimitWindow(record: ApiKeyRecord, now: Date): LimitWindow | undefined {
  return tightestWindow(limitWindows(record, currentSpend(record, now)))?.window;
}
