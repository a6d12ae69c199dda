/**
 * What people call a call's outcome, and the statuses the usage log stores for each: the one
 * place a status filter is read, by the console and `GET /v1/usage` alike.
 *
 * - `success`: answered (`success`), or passed through with its billing deferred (`deferred_billing`).
 * - `error`: the call went out and failed: the provider failed (`upstream_error`), the client
 *   went away (`client_closed`), the serving process died (`interrupted`), or another fault (`error`).
 * - `refused`: Junction refused it before any provider saw it: a limit, the plan, the
 *   allowlist, the rate window, or credit (`rejected`).
 *
 * A stored status is accepted too and finds exactly its rows.
 */
export const USAGE_OUTCOMES = {
  success: ['success', 'deferred_billing'],
  error: ['upstream_error', 'client_closed', 'interrupted', 'error'],
  refused: ['rejected'],
} as const;

export type UsageOutcome = keyof typeof USAGE_OUTCOMES;

/** Every status a usage row can hold (the table's CHECK constraint). */
export const STORED_USAGE_STATUSES = ['success', 'upstream_error', 'rejected', 'client_closed', 'interrupted', 'deferred_billing', 'error'] as const;

/** What a status filter accepts: the three outcomes first, then the stored statuses they do not already name. */
export const USAGE_STATUS_FILTERS = ['success', 'error', 'refused', 'upstream_error', 'rejected', 'client_closed', 'interrupted', 'deferred_billing'] as const;
export type UsageStatusFilter = (typeof USAGE_STATUS_FILTERS)[number];

/** The stored statuses a filter value finds. */
export function storedStatuses(filter: UsageStatusFilter): readonly string[] {
  return filter in USAGE_OUTCOMES ? USAGE_OUTCOMES[filter as UsageOutcome] : [filter];
}

/** The outcome a stored status belongs to, as the console shows it. */
export function outcomeOf(status: string): UsageOutcome {
  if ((USAGE_OUTCOMES.success as readonly string[]).includes(status)) return 'success';
  return status === 'rejected' ? 'refused' : 'error';
}
