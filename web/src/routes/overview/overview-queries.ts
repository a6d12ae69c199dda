import { OverviewSchema } from '@contract/overview.ts';
import { UsagePageSchema } from '@contract/usage.ts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { browserTimeZone } from '../usage/local-dates.ts';

const FIRST_CALL_POLL_MS = 5_000;

/**
 * The Overview in the browser's days. Read again every 30 s and whenever the tab regains
 * focus: calls made elsewhere (a script, another tab) move the balance and the charts.
 */
export function useOverview() {
  const zone = browserTimeZone();
  return useQuery({
    queryKey: ['overview', zone],
    queryFn: () => api(OverviewSchema, `/overview?time_zone=${encodeURIComponent(zone)}`),
    refetchInterval: 30_000,
    refetchOnWindowFocus: 'always',
  });
}

/** Whether the account's usage log has any row: asked every few seconds until it has, when `watching`. */
export function useFirstCall(watching: boolean) {
  return useQuery({
    queryKey: ['usage', 'first-call'],
    queryFn: async () => (await api(UsagePageSchema, '/usage?limit=1')).data.length > 0,
    enabled: watching,
    refetchInterval: (query) => (query.state.data === true ? false : FIRST_CALL_POLL_MS),
  });
}
