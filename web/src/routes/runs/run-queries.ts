import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { RunContentSettingSchema, type RunContentSetting, RunLookupSchema } from '@contract/runs.ts';
import { api } from '../../api/client.ts';

/** A run (its steps) or a gateway call (its usage row), by run id, response id or usage row id. */
export const useRunLookup = (id: string) => useQuery({ queryKey: ['runs', id], queryFn: () => api(RunLookupSchema, `/runs/${encodeURIComponent(id)}`), retry: false });

export const useRunHistorySetting = () => useQuery({ queryKey: ['settings', 'run-history'], queryFn: () => api(RunContentSettingSchema, '/settings/run-history') });

export function useSetRunHistory() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (setting: RunContentSetting) => api(RunContentSettingSchema, '/settings/run-history', { method: 'PUT', body: setting }),
    onSuccess: (saved) => client.setQueryData(['settings', 'run-history'], saved),
  });
}
