import { type UsageSummaryQuery, UsageSummarySchema } from '@contract/usage.ts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';

/** Query-string pairs of the values that are set. */
export const queryString = (query: Record<string, string | number | undefined>): URLSearchParams =>
  new URLSearchParams(Object.entries(query).flatMap(([name, value]) => (value === undefined || value === '' ? [] : [[name, String(value)]])));

/** The group-by of the page's filters, with totals; off while no grouping is picked. */
export function useUsageSummary(query: UsageSummaryQuery | undefined) {
  const params = query ? queryString(query).toString() : '';
  return useQuery({ queryKey: ['usage', 'summary', params], queryFn: () => api(UsageSummarySchema, `/usage/summary?${params}`), enabled: query !== undefined });
}
