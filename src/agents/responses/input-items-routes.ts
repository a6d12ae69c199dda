import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { resolveResponseContinuation } from '../../conversations/conversation-service.ts';
import { findResponse } from '../../conversations/response-repository.ts';
import { JunctionError } from '../../core/errors.ts';
import type { ModelMessage } from '../../core/model-types.ts';
import { countLocalTokens } from '../../gateway/messages/local-token-counter.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { parseInput } from '../../http/parse-body.ts';
import type { AgentsApiDeps } from '../api/agents-api-deps.ts';
import { findRunByResponse } from '../durable/run-repository.ts';
import { StoredRunRequestSchema } from './background-response.ts';
import { toRunInput } from './response-input.ts';
import { CompactRequestSchema } from './response-request-schema.ts';

const ListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().min(1).optional(),
  include: z.union([z.string(), z.array(z.string())]).optional(),
});

const StoredInputSchema = z.object({ input: z.array(z.record(z.string(), z.unknown())) }).loose();

/** The body of `POST /responses/input_tokens`: a create request's context; tool definitions count too, settings are read and left. */
const InputTokensSchema = CompactRequestSchema.extend({
  tools: z.array(z.record(z.string(), z.unknown())).max(128).nullish(),
  tool_choice: z.unknown().optional(),
  text: z.unknown().optional(),
  reasoning: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  truncation: z.string().nullish(),
});

/**
 * OpenAI's Responses endpoints beside the spec's: `GET /responses/{id}/input_items` (the
 * input items a response was created with, as sent, paged like OpenAI's lists) and
 * `POST /responses/input_tokens` (the context a request would give the agent's model,
 * counted locally with o200k_base: free, nothing called or billed).
 */
export async function inputItemsRoutes(app: FastifyInstance, deps: AgentsApiDeps): Promise<void> {
  const ownerOf = (request: FastifyRequest) => {
    const key = authenticatedKey(request);
    return { accountId: key.accountId, keyId: key.id };
  };

  app.get('/responses/:id/input_items', async (request) => {
    const { id } = request.params as { id: string };
    const query = parseInput(ListQuerySchema, request.query, 'query string');
    const owner = ownerOf(request);
    const stored = await findResponse(deps.db, owner, id);
    // A background response still running has no response row yet: its run keeps the body.
    const run = stored ? undefined : await findRunByResponse(deps.db, owner, id);
    const request_ = stored?.request ?? (run ? StoredRunRequestSchema.parse(run.request).body : undefined);
    if (!request_) throw new JunctionError('not_found', `No response found with id '${id}'.`);
    const input = StoredInputSchema.safeParse(request_);
    const items = (input.success ? input.data.input : []).map((item, index) => asListedItem(item, `${id}_input_${index}`));
    const ordered = query.order === 'asc' ? items : items.toReversed();
    const start = query.after === undefined ? 0 : ordered.findIndex((item) => item.id === query.after) + 1;
    if (query.after !== undefined && start === 0) throw new JunctionError('invalid_request', `No input item '${query.after}' in response '${id}'.`, { param: 'after' });
    const page = ordered.slice(start, start + query.limit);
    return { object: 'list', data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: start + query.limit < ordered.length };
  });

  app.post('/responses/input_tokens', { bodyLimit: LARGE_BODY_LIMIT }, async (request) => {
    const body = parseInput(InputTokensSchema, request.body);
    const owner = ownerOf(request);
    const agent = await deps.agents.require(owner.accountId, body.model);
    const continuation = await resolveResponseContinuation(deps.db, { ...owner, agentId: agent.id, previousResponseId: body.previous_response_id ?? null });
    const references = new Map((continuation.previousResponse?.output ?? []).flatMap((item) => (typeof item.id === 'string' ? [[item.id, item] as const] : [])));
    const seal = deps.runtime.compactions;
    const turn = toRunInput(body.input ?? [], {
      history: continuation.history,
      references,
      ...(seal && { openCompaction: (encrypted: string, param: string) => seal.open(owner.accountId, encrypted, param) }),
    });
    const instructions = [agent.config.instructions, body.instructions, ...turn.instructions].filter((text): text is string => Boolean(text));
    const tools = (body.tools ?? []).map((tool) => JSON.stringify(tool));
    const counts = await countLocalTokens([...instructions, ...tools, ...[...continuation.history, ...turn.messages].map(messageText)]);
    return { object: 'response.input_tokens', input_tokens: counts.reduce((sum, count) => sum + count, 0) };
  });
}

/** As OpenAI lists input items: each with an id, and a message's text as content parts. */
function asListedItem(item: Record<string, unknown>, fallbackId: string): Record<string, unknown> {
  const listed = { ...item, id: typeof item.id === 'string' ? item.id : fallbackId };
  if (item.type !== 'message') return listed;
  const content = typeof item.content === 'string' ? [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }] : item.content;
  return { ...listed, content, status: typeof item.status === 'string' ? item.status : 'completed' };
}

const messageText = (message: ModelMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : message.content
        .map((part) => {
          if ('text' in part && typeof part.text === 'string') return part.text;
          return 'arguments' in part && typeof part.arguments === 'string' ? `${part.name} ${part.arguments}` : '';
        })
        .join('');
