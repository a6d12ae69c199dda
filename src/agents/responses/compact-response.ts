import { randomHex } from '../../core/random-hex.ts';
import type { FastifyInstance } from 'fastify';
import { resolveResponseContinuation } from '../../conversations/conversation-service.ts';
import { JunctionError } from '../../core/errors.ts';
import type { ModelMessage } from '../../core/model-types.ts';
import { callContextFrom } from '../../gateway/call-context-from-request.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { parseInput } from '../../http/parse-body.ts';
import type { AgentsApiDeps } from '../api/agents-api-deps.ts';
import { newRunId } from '../run-id.ts';
import { toRunInput } from './response-input.ts';
import { CompactRequestSchema } from './response-request-schema.ts';
import { wireUsage } from './response-resource.ts';

/** What the agent's model is asked for: notes it can carry on from, not a story. */
const COMPACTION_INSTRUCTIONS =
  'Compact the conversation above for your own later use. Write concise notes that let you carry on without it: ' +
  'the facts the user gave, decisions and results so far (including what tools returned that still matters), ' +
  'and what is still open. No preamble; plain text.';

/**
 * `POST /agents/v1/responses/compact` (Open Responses 2026-04-24): the context named by
 * `previous_response_id` and/or `input` is summarised by the agent's own model (one
 * model call, billed and logged like any) and returned as a `compaction` item whose
 * `encrypted_content` seals the summary for this account. Passed back in a later
 * request's `input`, it stands in for that context as one user turn.
 */
export async function compactResponseRoute(app: FastifyInstance, deps: AgentsApiDeps): Promise<void> {
  app.post('/responses/compact', { bodyLimit: LARGE_BODY_LIMIT }, async (request, reply) => {
    const body = parseInput(CompactRequestSchema, request.body);
    const seal = deps.runtime.compactions;
    if (!seal) throw new JunctionError('service_unavailable', 'Compaction is not available on this server.');
    const key = authenticatedKey(request);
    const owner = { accountId: key.accountId, keyId: key.id };
    const agent = await deps.agents.require(owner.accountId, body.model);
    const continuation = await resolveResponseContinuation(deps.db, { ...owner, agentId: agent.id, previousResponseId: body.previous_response_id ?? null });
    const references = new Map((continuation.previousResponse?.output ?? []).flatMap((item) => (typeof item.id === 'string' ? [[item.id, item] as const] : [])));
    const turn = toRunInput(body.input ?? [], { history: continuation.history, references, openCompaction: (encrypted, param) => seal.open(owner.accountId, encrypted, param) });
    const context: ModelMessage[] = [...continuation.history, ...turn.messages];
    if (context.length === 0) throw new JunctionError('invalid_request', 'Nothing to compact: give input, previous_response_id or both.', { param: 'input' });

    const instructions = [agent.instructions, body.instructions, ...turn.instructions].filter(Boolean).join('\n\n');
    const callContext = { ...callContextFrom(request, reply, 'agents.responses.compact'), agent: { agentId: agent.id, runId: newRunId(), version: agent.version } };
    const result = await deps.runtime.chat.generate(callContext, {
      model: agent.config.model,
      fallbackModels: agent.config.fallbackModels,
      request: {
        messages: [...(instructions ? [{ role: 'system' as const, content: instructions }] : []), ...context, { role: 'user', content: [{ type: 'text', text: COMPACTION_INSTRUCTIONS }] }],
      },
    });
    const summary = result.response.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('')
      .trim();
    if (summary === '') throw new JunctionError('upstream_error', 'The model returned no summary to compact into.');
    return {
      id: `resp_${randomHex(24)}`,
      object: 'response.compaction',
      created_at: Math.floor(Date.now() / 1000),
      output: [{ type: 'compaction', id: `cmp_${randomHex(24)}`, encrypted_content: seal.seal(owner.accountId, summary), created_by: 'junction' }],
      usage: wireUsage(result.usage, { modelCostMicros: result.costMicros, toolCostMicros: 0 }),
    };
  });
}
