import type { UsageEntry } from '@contract/usage.ts';

const OUTCOME_NAMES = { success: 'Success', error: 'Error', refused: 'Refused' } as const;

/** `Error (upstream_error)`: the word people filter by, and the stored status when it says more. */
export function statusText(entry: Pick<UsageEntry, 'status' | 'outcome'>): string {
  const name = OUTCOME_NAMES[entry.outcome];
  return entry.status === entry.outcome ? name : `${name} (${entry.status})`;
}
