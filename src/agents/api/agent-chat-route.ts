import type { FastifyInstance } from 'fastify';
import { type NewMessage, newMessageId } from '../../conversations/conversation-repository.ts';
import { recordTurn, resolveContinuation } from '../../conversations/conversation-service.ts';
import { JunctionError } from '../../core/errors.ts';
import { agentRunFailure } from '../agent-run-failure.ts';
import type { AssistantPart, ModelMessage, Usage } from '../../core/model-types.ts';
import { ChatChunkEncoder } from '../../gateway/chat-completions/chat-chunk-encoder.ts';
import { callContextFrom } from '../../gateway/call-context-from-request.ts';
import { renderChatCompletion } from '../../gateway/chat-completions/render-chat-response.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { LARGE_BODY_LIMIT } from '../../http/body-limits.ts';
import { parseInput } from '../../http/parse-body.ts';
import { SseWriter } from '../../http/sse-writer.ts';
import type { AgentRunResult } from '../agent-runner.ts';
import { addUsage } from '../run-totals.ts';
import { runMetadata } from '../run-metadata.ts';
import { runAgent } from '../agent-runtime-loader.ts';
import { claimPause } from '../responses/response-approvals.ts';
import { AgentChatRequestSchema, toAgentTurn } from './agent-chat-request.ts';
import { activeAgent } from '../handoffs.ts';
import { servingFor } from '../release-selection.ts';
import { chatApprovalResume, recordChatPause } from './chat-approvals.ts';
import type { AgentsApiDeps } from './agents-api-deps.ts';

/**
 * `POST /agents/v1/chat/completions`: chat with an agent. The server runs the agent's
 * prompt, knowledge retrieval and tools; the reply carries the conversation tree's
 * ids so the client can continue or branch. Server-side tool steps are not sent as
 * `tool_calls` (the client could not act on them); client-declared tools are.
 */
export async function agentChatRoute(app: FastifyInstance, deps: AgentsApiDeps): Promise<void> {
  app.post('/chat/completions', { bodyLimit: LARGE_BODY_LIMIT }, async (request, reply) => {
    const body = parseInput(AgentChatRequestSchema, request.body);
    const key = authenticatedKey(request);
    const requested = await deps.agents.require(key.accountId, body.model);
    const continuation = await resolveContinuation(deps.db, {
      accountId: key.accountId,
      keyId: key.id,
      agentId: requested.id,
      conversationId: body.conversation_id ?? null,
      parentMessageId: body.parent_message_id ?? null,
    });
    // After a handoff, the agent the conversation was handed to answers (handoffs.ts); a staged release serves its share of conversations.
    const conversationId = continuation.conversation.id;
    const agent = await activeAgent(servingFor(requested, conversationId), continuation.path, (id) => deps.agents.find(key.accountId, id), conversationId);
    const turn = toAgentTurn(body);
    const owner = { accountId: key.accountId, keyId: key.id };
    const resume = await chatApprovalResume(deps.db, owner, body.parent_message_id, turn.input);
    if (turn.input.length === 0) throw new JunctionError('invalid_request', 'Send at least one user (or tool) message for the new turn.', { param: 'messages' });
    // Same rule as the Responses endpoint: a client tool named like one of the agent's own would be
    // declared twice to the provider and run by the server while also being shown to the client.
    const taken = (turn.overrides.clientTools ?? []).findIndex((tool) => agent.config.tools.includes(tool.name));
    if (taken >= 0) {
      const message = `Tool '${turn.overrides.clientTools?.[taken]?.name}' is one of the agent's own tools; give the client tool another name.`;
      throw new JunctionError('invalid_request', message, { param: `tools.${taken}.function.name` });
    }
    const context = callContextFrom(request, reply, 'agents.chat.completions');
    if (resume && !(await claimPause(deps.db, resume.threadId))) throw new JunctionError('invalid_request', 'These approvals were answered already.', { param: 'parent_message_id' });
    const run = runAgent(deps.runtime, {
      agent,
      context,
      conversationId,
      history: continuation.history,
      input: turn.input,
      overrides: turn.overrides,
      ...(resume && { resume: { threadId: resume.threadId, from: 'pause' as const, value: resume.decisions } }),
    });
    // A call of a tool that needs approval pauses the run: it is shown (and streamed) like a client tool call (chat-approvals.ts).
    const clientToolNames = new Set([...(turn.overrides.clientTools ?? []).map((tool) => tool.name), ...agent.config.approvalTools]);
    const messageId = newMessageId();
    // The conversation tree's ids, and the agent version that produced this answer.
    const ids = { conversation_id: continuation.conversation.id, message_id: messageId, parent_message_id: continuation.parentMessageId, agent_version: agent.version };
    const created = Math.floor(Date.now() / 1000);
    const meta = { id: `chatcmpl-${run.runId}`, model: agent.id, created, provider: 'junction' };

    const store = async (result: AgentRunResult) => {
      // Approval answers are decisions, not conversation: the resumed run records the real tool results.
      const stored = toStoredMessages(resume ? [] : turn.input, result, messageId);
      const calls = result.pendingApprovals;
      await recordTurn(deps.db, {
        continuation,
        agentId: agent.id,
        messages: stored,
        ...(calls && { withinTransaction: (tx) => recordChatPause(tx, { threadId: result.threadId, messageId, owner, agentId: agent.id, calls }) }),
      });
    };

    if (!body.stream) {
      for await (const _ of run.events) {
        // The run streams; a non-streaming reply waits for its end.
      }
      const result = finished(run.result());
      await store(result);
      return renderChatCompletion(
        { id: meta.id, model: result.model, content: answerParts(result, clientToolNames), usage: result.usage, finishReason: finishOf(result, clientToolNames) },
        { ...meta, costMicros: result.costMicros },
        ids,
      );
    }

    const sse = new SseWriter(reply);
    const encoder = new ChatChunkEncoder(meta, ids);
    // Tool-call indexes of the current step that belong to server-side tools: not forwarded.
    let hiddenCalls = new Set<number>();
    // What the run has been billed so far (its sub-agents' steps too): reported if it fails midway.
    const billed = { usage: { inputTokens: 0, outputTokens: 0 } as Usage, costMicros: 0, any: false };
    try {
      for await (const event of run.events) {
        if (event.type === 'model-finished') Object.assign(billed, { usage: addUsage(billed.usage, event.usage), costMicros: billed.costMicros + event.costMicros, any: true });
        if (event.type === 'tool-finished') Object.assign(billed, { costMicros: billed.costMicros + event.costMicros, any: true });
        if (event.agent) continue; // a sub-agent's steps: its answer reaches the client through the caller's
        if (event.type === 'model-started') hiddenCalls = new Set();
        if (event.type !== 'model-event') continue;
        const inner = event.event;
        if (inner.type === 'usage' || inner.type === 'finish') continue;
        if (inner.type === 'tool-call-start' && !clientToolNames.has(inner.name)) hiddenCalls.add(inner.index);
        if ((inner.type === 'tool-call-start' || inner.type === 'tool-call-delta') && hiddenCalls.has(inner.index)) continue;
        for (const chunk of encoder.encode(inner)) {
          // A promise only while the client lags: awaiting nothing cost a microtask per chunk.
          const full = sse.sendJson(chunk);
          if (full) await full;
        }
      }
      const result = finished(run.result());
      await store(result);
      encoder.encode({ type: 'finish', finishReason: finishOf(result, clientToolNames) });
      for (const chunk of encoder.finish(result.costMicros, true, result.usage)) await sse.sendJson(chunk);
      sse.end('data: [DONE]\n\n');
    } catch (error) {
      const failure = agentRunFailure(error);
      if (failure.status >= 500) request.log.error({ err: error }, 'agent run failed');
      if (billed.any) await sse.sendJson(encoder.usageOnly(billed.costMicros, billed.usage));
      await sse.send(failure.toOpenAIBody());
      sse.end();
    }
    return reply;
  });
}

const finished = (result: AgentRunResult | undefined): AgentRunResult => {
  if (!result) throw new JunctionError('internal_error', 'The agent run ended without a result.');
  return result;
};

/** The answer the client sees: the last assistant message's text and reasoning, plus client tool calls. */
function answerParts(result: AgentRunResult, clientTools: ReadonlySet<string>): AssistantPart[] {
  const last = result.messages.findLast((message) => message.role === 'assistant');
  if (last?.role !== 'assistant') return [];
  return last.content.filter((part) => part.type !== 'tool-call' || clientTools.has(part.name));
}

function finishOf(result: AgentRunResult, clientTools: ReadonlySet<string>) {
  const pendingClientCall = answerParts(result, clientTools).some((part) => part.type === 'tool-call');
  return pendingClientCall ? { unified: 'tool-calls' as const, raw: 'tool_calls' } : result.finishReason;
}

/**
 * The turn as stored: the new input, then what the run produced. The last assistant
 * message carries the run's usage; the turn's LAST node gets the announced id, because
 * that id is where the client continues from: after a step that ran a server tool and
 * stopped for a client's tool, the last node is the server tool's result, which the
 * next turn's history must hold (it is the assistant message otherwise).
 */
function toStoredMessages(input: ModelMessage[], result: AgentRunResult, messageId: string): NewMessage[] {
  const lastAssistant = result.messages.findLastIndex((message) => message.role === 'assistant');
  const nodes: NewMessage[] = [
    ...input.map((message) => ({ message })),
    ...result.messages.map((message, index) => ({
      message,
      agentId: result.messageAgents[index] ?? null,
      model: message.role === 'assistant' ? result.model : null,
      // The run's usage rows carry its id: the console links each turn to what it cost; feedback counts for the version that answered.
      metadata: runMetadata(result, result.messageAgents[index]),
      ...(index === lastAssistant && { usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens }, costMicros: result.costMicros }),
    })),
  ];
  const last = nodes.at(-1);
  if (last) last.id = messageId;
  return nodes;
}
