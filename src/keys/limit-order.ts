import { microsToUsd } from '../core/money.ts';
import { JunctionError } from '../core/errors.ts';
import type { KeySettings } from './key-record.ts';

const WINDOWS = [
  { setting: 'dailyLimitMicros', wire: 'daily_limit_usd', name: 'daily' },
  { setting: 'monthlyLimitMicros', wire: 'monthly_limit_usd', name: 'monthly' },
  { setting: 'totalLimitMicros', wire: 'total_limit_usd', name: 'total' },
] as const;

/**
 * Limits sent together must grow with their window: a monthly limit under the daily one
 * would make the daily one a lie. Refused, naming the longer window's field.
 */
export function requireOrderedLimits(settings: Pick<KeySettings, 'dailyLimitMicros' | 'monthlyLimitMicros' | 'totalLimitMicros'>): void {
  for (const [index, longer] of WINDOWS.entries()) {
    for (const shorter of WINDOWS.slice(0, index)) {
      const longValue = settings[longer.setting];
      const shortValue = settings[shorter.setting];
      if (typeof longValue === 'number' && typeof shortValue === 'number' && longValue < shortValue) {
        throw new JunctionError(
          'invalid_request',
          `The ${longer.name} limit ($${microsToUsd(longValue)}) is below the ${shorter.name} limit ($${microsToUsd(shortValue)}): raise it, or lower the ${shorter.name} one.`,
          { param: longer.wire },
        );
      }
    }
  }
}
