import { type FeedbackEntry, FeedbackEntrySchema, FeedbackListSchema, FeedbackPageSchema, type FeedbackRating, FeedbackSummarySchema } from '@contract/feedback.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, currentCsrfToken } from './client.ts';
import { plainMessage } from './plain-messages.ts';

/** An agent's feedback summed per version (the agent page). */
export const useFeedbackSummary = (agentId: string) =>
  useQuery({ queryKey: ['feedback', 'summary', agentId], queryFn: () => api(FeedbackSummarySchema, `/agents/${encodeURIComponent(agentId)}/feedback-summary`) });

/** The feedback given on one run, by any id its page is opened with. */
export const useRunFeedback = (id: string) => useQuery({ queryKey: ['feedback', 'run', id], queryFn: () => api(FeedbackPageSchema, `/runs/${encodeURIComponent(id)}/feedback`) });

export type FeedbackSearch = { agentId: string; rating: FeedbackRating | '' };

/** The account's rated runs, newest first, filtered by agent and rating. */
export const useFeedbackSearch = (search: FeedbackSearch) =>
  useQuery({
    queryKey: ['feedback', 'search', search],
    queryFn: () => {
      const query = new URLSearchParams({ limit: '50', ...(search.agentId && { agent_id: search.agentId }), ...(search.rating && { rating: search.rating }) });
      return api(FeedbackPageSchema, `/feedback?${query}`);
    },
  });

/** The newest feedback on a playground answer, so a reloaded page shows what was said. */
export const useAnswerFeedback = (responseId: string) =>
  useQuery({
    queryKey: ['feedback', 'answer', responseId],
    queryFn: async () => {
      const response = await fetch(`/agents/v1/responses/${encodeURIComponent(responseId)}/feedback?limit=1`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (!response.ok) throw new ApiError(response.status, `Feedback could not be read (${response.status})`, null);
      return FeedbackListSchema.parse(await response.json()).data[0] ?? null;
    },
    retry: false,
  });

export type FeedbackGiven = { score: 'up' | 'down'; comment: string };

/**
 * Feedback on a playground answer through the Agents API (`/agents/v1/responses/{id}/feedback`)
 * with the console session, exactly as an app gives it with its key.
 */
async function giveFeedback(responseId: string, given: FeedbackGiven): Promise<FeedbackEntry> {
  const response = await fetch(`/agents/v1/responses/${encodeURIComponent(responseId)}/feedback`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': currentCsrfToken() },
    body: JSON.stringify({ score: given.score, ...(given.comment && { comment: given.comment }) }),
  });
  const json: unknown = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = (json as { error?: { message?: string; param?: string | null } }).error;
    throw new ApiError(response.status, plainMessage(error?.message ?? `Feedback was not saved (${response.status})`, error?.param ?? null), error?.param ?? null);
  }
  return FeedbackEntrySchema.parse(json);
}

export function useGiveFeedback(responseId: string) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (given: FeedbackGiven) => giveFeedback(responseId, given), onSuccess: () => client.invalidateQueries({ queryKey: ['feedback'] }) });
}
