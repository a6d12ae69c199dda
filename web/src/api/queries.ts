import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AgentDetailSchema, EditorOptionsSchema } from '@contract/agent-editor.ts';
import { AgentListSchema } from '@contract/agents.ts';
import { CreatedKeySchema, type KeyKind, KeyListSchema, type ModelKeyInput, type ModelKeyUpdate, type SimpleKeyInput, ConsoleKeySchema } from '@contract/keys.ts';
import { InvitationListSchema, InvitedSchema } from '@contract/invitations.ts';
import { MemberListSchema, MemberSchema } from '@contract/members.ts';
import { ModelListSchema } from '@contract/models.ts';
import { type Me, MeSchema, type Role } from '@contract/session.ts';
import { type UsageQuery, UsagePageSchema } from '@contract/usage.ts';
import { api, apiText, setCsrfToken } from './client.ts';

const Ok = z.object({}).loose();
const KEY_PATHS: Record<KeyKind, string> = { model: '/keys', provisioning: '/provisioning-keys', agent: '/agent-keys' };

/** Typed hooks per resource; mutations invalidate what they change (server data is never copied into a store). */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      const me = await api(MeSchema, '/me');
      setCsrfToken(me.signed_in ? me.csrf_token : '');
      return me;
    },
    retry: false,
    staleTime: 60_000,
  });
}

/** The signed-in session's facts (role, accounts, CSRF token), or undefined while loading or signed out. */
export function useSignedIn(): Me | undefined {
  const me = useMe();
  return me.data?.signed_in ? me.data : undefined;
}

export const useModels = () => useQuery({ queryKey: ['models'], queryFn: () => api(ModelListSchema, '/models') });
export const useAgents = () => useQuery({ queryKey: ['agents'], queryFn: () => api(AgentListSchema, '/agents') });
export const useAgent = (id: string) => useQuery({ queryKey: ['agents', id], queryFn: () => api(AgentDetailSchema, `/agents/${encodeURIComponent(id)}`), retry: false });
/** The agent as its YAML file (what `Export YAML` downloads): how file agents are shown. */
export const useAgentYaml = (id: string, enabled: boolean) => useQuery({ queryKey: ['agents', id, 'yaml'], queryFn: () => apiText(`/agents/${encodeURIComponent(id)}/export`), enabled });
export const useEditorOptions = () => useQuery({ queryKey: ['agent-editor-options'], queryFn: () => api(EditorOptionsSchema, '/agent-editor-options') });

const SavedAgentSchema = z.object({ id: z.string(), version: z.number() });

/** Saves a new version; a refusal arrives as an ApiError whose `issues` name the fields. */
export function useSaveAgent() {
  const client = useQueryClient();
  return useMutation({
    // `create` sends If-None-Match: * so a taken id answers 409 instead of overwriting that agent.
    mutationFn: ({ id, definition, changeNote, create = false }: { id: string; definition: Record<string, unknown>; changeNote: string | null; create?: boolean }) =>
      api(SavedAgentSchema, `/agents/${encodeURIComponent(id)}`, { method: 'PUT', body: { definition, change_note: changeNote }, ...(create && { headers: { 'if-none-match': '*' } }) }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['agents'] }),
  });
}

export function useRollbackAgent(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => api(SavedAgentSchema, `/agents/${encodeURIComponent(id)}/rollback`, { method: 'POST', body: { version } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['agents'] }),
  });
}

export function useDeleteAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(Ok, `/agents/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['agents'] }),
  });
}
export const useMembers = () => useQuery({ queryKey: ['members'], queryFn: () => api(MemberListSchema, '/members') });
export const useKeys = (kind: KeyKind) => useQuery({ queryKey: ['keys', kind], queryFn: () => api(KeyListSchema, `/keys?kind=${kind}`) });

export function useUsage(query: UsageQuery) {
  const params = new URLSearchParams(Object.entries(query).flatMap(([name, value]) => (value === undefined || value === '' ? [] : [[name, String(value)]])));
  return useQuery({ queryKey: ['usage', params.toString()], queryFn: () => api(UsagePageSchema, `/usage?${params}`) });
}

export function useCreateKey(kind: KeyKind) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: ModelKeyInput | SimpleKeyInput) => api(CreatedKeySchema, KEY_PATHS[kind], { method: 'POST', body: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['keys', kind] }),
  });
}

export function useUpdateKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: string; input: ModelKeyUpdate }) => api(z.object({ data: ConsoleKeySchema }), `/keys/${id}`, { method: 'PATCH', body: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['keys', 'model'] }),
  });
}

export function useDeleteKey(kind: KeyKind) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(Ok, `${KEY_PATHS[kind]}/${id}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['keys', kind] }),
  });
}

export const useInvitations = () => useQuery({ queryKey: ['invitations'], queryFn: () => api(InvitationListSchema, '/invitations') });

/** Invites a person: the answer carries the link to pass on, shown this once. */
export function useInvite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; role: Role }) => api(InvitedSchema, '/invitations', { method: 'POST', body: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['invitations'] }),
  });
}

export function useRevokeInvitation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(Ok, `/invitations/${id}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['invitations'] }),
  });
}

export function useChangeRole() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: Role }) => api(z.object({ data: MemberSchema }), `/members/${userId}`, { method: 'PATCH', body: { role } }),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['members'] }), client.invalidateQueries({ queryKey: ['invitations'] })]),
  });
}

export function useRemoveMember() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => api(Ok, `/members/${userId}`, { method: 'DELETE' }),
    // Removing someone also revokes the invitations they made.
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['members'] }), client.invalidateQueries({ queryKey: ['invitations'] })]),
  });
}

/** Switching account changes everything shown: every cached answer is dropped. */
export function useSwitchAccount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (accountId: string) => api(Ok, '/session/account', { method: 'POST', body: { account_id: accountId } }),
    onSuccess: () => client.resetQueries(),
  });
}

/** Signing out drops every cached answer without refetching them (they belong to the session that ended). */
export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api(Ok, '/session', { method: 'DELETE' }),
    onSettled: () => client.clear(),
  });
}
