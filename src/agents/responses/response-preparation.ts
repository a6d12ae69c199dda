import { newConversation, resolveContinuation, resolveResponseContinuation } from '../../conversations/conversation-service.ts';
import type { ConversationOwner } from '../../conversations/conversation-repository.ts';
import { isJunctionError, JunctionError } from '../../core/errors.ts';
import type { Database } from '../../store/database.ts';
import type { LoadedAgent } from '../agent-registry.ts';
import type { AgentRunResult } from '../agent-runner.ts';
import { activeAgent } from '../handoffs.ts';
import { servingFor } from '../release-selection.ts';
import { requestMcpServers } from '../mcp/request-mcp-servers.ts';
import type { TenantMcpPolicy } from '../mcp/tenant-mcp-policy.ts';
import type { CompactionSeal } from './compaction-seal.ts';
import type { ConnectionResponses } from './connection-responses.ts';
import { mcpToolResolver, runMcpLabels } from './mcp-tool-names.ts';
import { supersedePause } from '../durable/run-repository.ts';
import { approvalItems, approvalResume } from './response-approvals.ts';
import type { OutputItem } from './response-items.ts';
import { toRunInput } from './response-input.ts';
import type { CreateResponseRequest } from './response-request-schema.ts';
import { effectiveSettings, runOverrides } from './response-resource.ts';

export type PrepareOptions = {
  /** The agents a handoff may name: the account's own. */
  lookup?: (accountId: string, agentId: string) => Promise<LoadedAgent | undefined>;
  /** Where a request may add MCP servers. */
  mcpPolicy?: Pick<TenantMcpPolicy, 'allowlist' | 'allowPrivate'>;
  /** A WebSocket connection's unstored responses, which `previous_response_id` may name. */
  remembered?: ConnectionResponses;
  /** Opens the `compaction` items of the input. */
  compactions?: CompactionSeal;
  /** Drops the checkpoints of a paused thread the conversation moved on from. */
  forgetThread?: (threadId: string) => Promise<void>;
};

/** The options every caller with the API's deps passes. */
export const prepareOptions = (deps: {
  agents: { find(accountId: string, agentId: string): Promise<LoadedAgent | undefined> };
  runtime: { mcpPolicy?: Pick<TenantMcpPolicy, 'allowlist' | 'allowPrivate'>; compactions?: CompactionSeal; checkpointer?: { deleteThread(threadId: string): Promise<void> } };
}): PrepareOptions => ({
  lookup: (accountId, agentId) => deps.agents.find(accountId, agentId),
  ...(deps.runtime.mcpPolicy && { mcpPolicy: deps.runtime.mcpPolicy }),
  ...(deps.runtime.compactions && { compactions: deps.runtime.compactions }),
  ...(deps.runtime.checkpointer && { forgetThread: (threadId: string) => deps.runtime.checkpointer?.deleteThread(threadId) ?? Promise.resolve() }),
});

/**
 * A Responses request made ready to run: where it continues the conversation tree, its
 * new turn, the run's overrides and the effective settings. The same for a foreground
 * request and for a background run rebuilt from its stored body by another process.
 */
export async function prepareResponse(db: Database, requested: LoadedAgent, owner: ConversationOwner, body: CreateResponseRequest, options: PrepareOptions = {}) {
  const { lookup = async () => undefined, mcpPolicy = { allowlist: [], allowPrivate: false }, remembered, compactions } = options;
  const mcpServers = requestMcpServers(body, mcpPolicy);
  const resume = await approvalResume(db, owner, body);
  // Answers found inside a resent history continue the response that asked.
  const previousResponseId = body.previous_response_id ?? (resume?.inHistory ? resume.responseId : null);
  const previousInMemory = body.previous_response_id ? remembered?.get(body.previous_response_id) : undefined;
  if (previousInMemory && body.store !== false) {
    throw new JunctionError('invalid_request', "A response kept in this connection's memory (store: false) is continued with store: false too: its history was never stored.", { param: 'store' });
  }
  const conversationId = typeof body.conversation === 'string' ? body.conversation : (body.conversation?.id ?? null);
  if (conversationId !== null && body.previous_response_id) {
    throw new JunctionError('invalid_request', 'Send conversation or previous_response_id, not both: each names where the response continues.', { param: 'conversation' });
  }
  const inConversation = conversationId !== null && !resume;
  let continuation;
  if (previousInMemory) continuation = { ...newConversation(owner, requested.id), history: previousInMemory.history, previousResponse: { output: previousInMemory.output } };
  else if (inConversation) continuation = { ...(await resolveContinuation(db, { ...owner, agentId: requested.id, conversationId }).catch(asConversationParam)), previousResponse: null };
  else continuation = await resolveResponseContinuation(db, { ...owner, agentId: requested.id, previousResponseId });
  // A staged release serves its share of conversations, each for its whole life (release-selection.ts).
  const served = servingFor(requested, continuation.conversation.id);
  // After a handoff, the agent the conversation was handed to answers (handoffs.ts).
  const agent = await activeAgent(served, continuation.path, (agentId) => lookup(owner.accountId, agentId), continuation.conversation.id);
  const references = new Map((continuation.previousResponse?.output ?? []).flatMap((item) => (typeof item.id === 'string' ? [[item.id, item] as const] : [])));
  const openCompaction = compactions ? (encrypted: string, param: string) => compactions.open(owner.accountId, encrypted, param) : undefined;
  const read = toRunInput(body.input, { history: continuation.history, references, ...(openCompaction && { openCompaction }) });
  // A resent history is already in the paused thread: only the answers are new.
  const turn = resume?.inHistory ? { messages: [], instructions: read.instructions } : read;
  if (turn.messages.length === 0 && !resume) throw new JunctionError('invalid_request', 'Send at least one user message or function_call_output in input.', { param: 'input' });
  // A plain turn from a response waiting for approval moves on: its calls are answered as not run (unanswered-tool-calls.ts), its approvals closed.
  if (!resume && previousResponseId && approvalItems((continuation.previousResponse?.output ?? []) as OutputItem[]).length > 0) {
    const superseded = await supersedePause(db, owner, previousResponseId);
    if (superseded) await options.forgetThread?.(superseded);
  }
  return {
    agent,
    continuation,
    turn,
    overrides: { ...runOverrides(body, agent, turn.instructions), ...(mcpServers.length > 0 && { mcpServers }) },
    settings: effectiveSettings(body, served),
    mcpToolOf: mcpToolResolver(runMcpLabels(agent, body)),
    clientTools: new Set((body.tools ?? []).flatMap((tool) => (tool.type === 'function' ? [tool.name] : []))),
    /** Set when the request answers the approvals a paused run waits for. */
    resume,
  };
}
export type PreparedResponse = Awaited<ReturnType<typeof prepareResponse>>;

/** A conversation the caller cannot continue, named by the request's own field. */
const asConversationParam = (error: unknown): never => {
  throw isJunctionError(error) ? new JunctionError(error.code, error.message, { param: 'conversation' }) : error;
};

/** How a finished run ends: `incomplete` with a reason when a bound or a limit cut it short. */
/** Finish reasons that leave a response incomplete, and the reason it reports. */
const INCOMPLETE_FINISHES = new Map<string, string>([
  ['length', 'max_output_tokens'],
  ['content-filter', 'content_filter'],
]);

export function runOutcome(result: AgentRunResult): { status: 'completed' | 'incomplete'; incompleteReason: string | null } {
  const incompleteReason = result.stoppedBy ?? INCOMPLETE_FINISHES.get(result.finishReason.unified) ?? null;
  return { status: incompleteReason === null ? 'completed' : 'incomplete', incompleteReason };
}
