import { AuditListSchema, ReleasedSchema, SavedAgentSchema, VersionDiffSchema } from '@contract/agent-editor.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';

const agentPath = (id: string) => `/agents/${encodeURIComponent(id)}`;

/** A console agent's audit trail: who saved, published, staged, promoted or rolled back what, and when. */
export const useAgentAudit = (id: string) => useQuery({ queryKey: ['agents', id, 'audit'], queryFn: () => api(AuditListSchema, `${agentPath(id)}/audit`) });

/** Two versions' YAML compared line by line; asked only once both are chosen. */
export const useVersionDiff = (id: string, from: number | undefined, to: number | undefined) =>
  useQuery({
    queryKey: ['agents', id, 'diff', from, to],
    queryFn: () => api(VersionDiffSchema, `${agentPath(id)}/diff?from=${from}&to=${to}`),
    enabled: from !== undefined && to !== undefined && from !== to,
  });

/** Saves a new version as a draft (the first version of an agent is published by its save). */
export function useSaveDraft(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ definition, changeNote }: { definition: Record<string, unknown>; changeNote: string | null }) =>
      api(SavedAgentSchema, agentPath(id), { method: 'PUT', body: { definition, change_note: changeNote } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['agents'] }),
  });
}

export type ReleaseChange = { action: 'publish' | 'rollback'; version: number } | { action: 'stage'; version: number; share: number } | { action: 'promote' | 'abort' };

/** One release change: publish, roll back, stage, promote or abort. */
export function useReleaseChange(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (change: ReleaseChange) => {
      const { action, ...body } = change;
      return api(ReleasedSchema, `${agentPath(id)}/${action}`, { method: 'POST', ...(Object.keys(body).length > 0 && { body }) });
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['agents'] }),
  });
}
