import { type RunStepView, type RunView, RunLookupSchema } from '@contract/runs.ts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import type { DrawnStep } from './response-stream.ts';

/**
 * The run behind a finished answer, by its response id: read once the answer has ended
 * (the server writes a run's steps before it serves its page), under the run page's query
 * key so opening "See the run" shows it at once.
 */
export function useAnswerRun(responseId: string | undefined): RunView | undefined {
  const lookup = useQuery({
    queryKey: ['runs', responseId],
    queryFn: () => api(RunLookupSchema, `/runs/${encodeURIComponent(responseId ?? '')}`),
    enabled: responseId !== undefined && responseId !== '',
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return lookup.data?.kind === 'run' ? lookup.data.run : undefined;
}

/** One passage the agent's knowledge search gave the model, as its run step kept it. */
export type Passage = { source: string; title: string | null; text: string | undefined; score: number };

/** What an answer's run adds to the streamed steps: the passages retrieved before the model ran, and each tool step's time and cost. */
export type AnswerRun = {
  retrievals: Array<{ query: string; passages: Passage[]; context: string | undefined; kept: boolean }>;
  /** The recorded step of each drawn tool step, by the drawn step's id. */
  tools: Map<string, RunStepView>;
  agentVersion: string | null;
};

const asRecord = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

function passagesOf(content: Record<string, unknown>): Passage[] {
  const hits = Array.isArray(content['hits']) ? content['hits'] : [];
  return hits.map((hit) => {
    const fields = asRecord(hit);
    return {
      source: String(fields['source'] ?? ''),
      title: typeof fields['title'] === 'string' ? fields['title'] : null,
      text: typeof fields['text'] === 'string' ? fields['text'] : undefined,
      score: typeof fields['score'] === 'number' ? fields['score'] : 0,
    };
  });
}

/** Steps the server ran for a tool call (a sub-agent's and a handoff's are tool calls to the model too). */
const TOOL_KINDS = new Set<RunStepView['kind']>(['tool', 'mcp', 'agent', 'handoff']);

/**
 * Pairs the drawn tool steps with the run's recorded ones. Both follow the order the tools
 * started in, so the n-th server call drawn is the n-th recorded, preferring the next one
 * of the same name (an MCP call is drawn under its server's label, recorded under its tool).
 */
export function answerRun(run: RunView, drawn: readonly DrawnStep[]): AnswerRun {
  const ordered = [...run.steps].sort((a, b) => a.seq - b.seq);
  const recorded = ordered.filter((step) => TOOL_KINDS.has(step.kind));
  const used = new Set<string>();
  const tools = new Map<string, RunStepView>();
  for (const step of drawn) {
    if (step.kind !== 'tool' || !step.server) continue;
    const match = recorded.find((candidate) => !used.has(candidate.id) && candidate.name === step.name) ?? recorded.find((candidate) => !used.has(candidate.id));
    if (!match) break;
    used.add(match.id);
    tools.set(step.id, match);
  }
  const retrievals = ordered
    .filter((step) => step.kind === 'retrieval' && step.agent_path === null)
    .map((step) => {
      const content = asRecord(step.content);
      return {
        query: String(content['query'] ?? ''),
        passages: passagesOf(content),
        context: typeof content['context'] === 'string' ? content['context'] : undefined,
        kept: step.content !== null,
      };
    });
  return { retrievals, tools, agentVersion: run.agent_version };
}

/**
 * How closely a passage matched, in words. Scores rank passages within one search (they are
 * fused ranks, not percentages), so a passage is described against the best of its search.
 */
export function matchInWords(passage: Passage, best: number, position: number): string {
  if (position === 0) return 'the closest match of this search';
  const ratio = best > 0 ? passage.score / best : 0;
  if (ratio >= 0.9) return 'about as close as the best match';
  if (ratio >= 0.6) return 'a fair match, less close than the best';
  return 'a loose match';
}
