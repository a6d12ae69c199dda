import type { UsageRecord } from './usage-record.ts';

/** What one settled call (or one returned lease) changes in the database. */
export type Settlement = {
  /** A call's usage row: its cost is added as spend only if the row is actually inserted (retries never bill twice). */
  usage?: UsageRecord;
  keyId: string | null;
  /** Null for a returned key lease, which touches no account. */
  accountId: string | null;
  /** Actual cost: added to the key's windows and the account's usage (through the usage row when there is one). */
  spendMicros: number;
  /** Leased budget this settlement consumes or gives back: subtracted from `leased_micros`. */
  keyLeaseMicros: number;
  accountLeaseMicros: number;
};
