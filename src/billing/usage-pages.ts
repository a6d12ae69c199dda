import type { ReportingReads } from '../store/reporting-reads.ts';
import { listUsage, type UsageFilters, type UsageRow } from './usage-repository.ts';

/** Rows per statement of an export: a short read each, and few round trips. */
export const EXPORT_PAGE_ROWS = 1_000;

/**
 * Every row of the account's log that `filters` match, newest first, one keyset page at a
 * time: each page is one short statement on a reading connection, given back before the
 * consumer asks for the next, so an export of millions of rows holds neither a connection
 * nor more than a page in memory while its client reads slowly.
 */
export async function* allUsagePages(reads: ReportingReads, accountId: string, filters: Omit<UsageFilters, 'limit'>, pageRows = EXPORT_PAGE_ROWS): AsyncGenerator<UsageRow[]> {
  let before = filters.before;
  for (;;) {
    const page = await reads.session((db) => listUsage(db, accountId, { ...filters, ...(before && { before }), limit: pageRows }));
    if (page.length > 0) yield page;
    const last = page.at(-1);
    if (page.length < pageRows || last === undefined) return;
    before = { createdAt: last.created_at, id: last.id };
  }
}
