import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ConversationDetailSchema, ConversationPageSchema } from '@contract/conversations.ts';
import { api } from './client.ts';

/** One page of an agent's conversations, newest first, optionally of one key. */
export function useAgentConversations(agentId: string, filters: { keyId: string | undefined; cursor: string | undefined }) {
  const params = new URLSearchParams();
  if (filters.keyId) params.set('key_id', filters.keyId);
  if (filters.cursor) params.set('cursor', filters.cursor);
  return useQuery({
    queryKey: ['conversations', agentId, params.toString()],
    queryFn: () => api(ConversationPageSchema, `/agents/${encodeURIComponent(agentId)}/conversations?${params}`),
    placeholderData: keepPreviousData,
  });
}

/** A whole conversation tree with its runs' usage; `undefined` loads nothing. */
export function useConversation(id: string | undefined) {
  return useQuery({
    queryKey: ['conversation', id],
    queryFn: () => api(ConversationDetailSchema, `/conversations/${encodeURIComponent(id ?? '')}`),
    enabled: id !== undefined,
    retry: false,
  });
}
