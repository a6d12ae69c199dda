/**
 * The Usage page's filters as its URL holds them (`/usage?model=mini&status=error&from=2026-12-01`):
 * reload, share, back and forward all keep them. Days are local calendar days; the page
 * turns them into instants in the browser's time zone. The server checks every value again.
 */
export type UsageSearch = {
  key?: string;
  model?: string;
  endpoint?: string;
  status?: string;
  agent?: string;
  from?: string;
  to?: string;
  group?: string;
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const NAMES = ['key', 'model', 'endpoint', 'status', 'agent', 'from', 'to', 'group'] as const;

/** Known parameters only, as short text; a day must look like one. A number the router parsed is read back as its text. */
export function usageSearch(search: Record<string, unknown>): UsageSearch {
  const result: UsageSearch = {};
  for (const name of NAMES) {
    const raw = search[name];
    const value = typeof raw === 'number' ? String(raw) : raw;
    if (typeof value !== 'string' || value === '' || value.length > 256) continue;
    if ((name === 'from' || name === 'to') && !DAY.test(value)) continue;
    result[name] = value;
  }
  return result;
}
