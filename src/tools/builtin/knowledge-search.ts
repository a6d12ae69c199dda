import { z } from 'zod';
import { defineTool } from '../define-tool.ts';

/**
 * Lets the model search the agent's knowledge collections on its own, beyond the
 * retrieval the runtime does before the first model call. The search itself is
 * whatever the runtime injected as `context.knowledge`, scoped to this agent.
 */
export const knowledgeSearchTool = defineTool({
  name: 'knowledge_search',
  description:
    "Searches this agent's knowledge base (its documents) and returns the most relevant passages with their source. " +
    'Use it before answering questions about policies, products or anything the documents may cover.',
  parameters: z.object({
    query: z.string().min(1).max(1_000).describe('What to look for, in natural language'),
    limit: z.number().int().min(1).max(20).default(5).describe('How many passages to return'),
  }),
  execute: async ({ query, limit }, context) => {
    const hits = await context.knowledge.search(query, { limit });
    if (hits.length === 0) return 'No matching passages found.';
    return hits.map((hit) => ({ source: hit.source, collection: hit.collection, score: round(hit.score), content: hit.content }));
  },
});

const round = (score: number): number => Math.round(score * 1000) / 1000;
