import { z } from 'zod';
import type { ModelMessage } from '../../core/model-types.ts';
import { ChatRequestSchema } from '../../gateway/chat-completions/chat-request-schema.ts';
import { toChatInput } from '../../gateway/chat-completions/convert-chat-request.ts';
import type { AgentRunRequest } from '../agent-runner.ts';

/**
 * The gateway's chat-completions body with `model` = agent id, plus the conversation
 * tree's `conversation_id` and `parent_message_id`. `messages` carries the NEW turn
 * (history comes from the tree); system/developer messages add to the agent's
 * instructions for this request; `tools` are client-side functions the caller runs.
 */
/**
 * A turn's messages are stored in the conversation tree in one statement; this bound
 * keeps it under PostgreSQL's 65,535 bind parameters (12 per message) with room to spare.
 */
export const MAX_TURN_MESSAGES = 4_096;

export const AgentChatRequestSchema = ChatRequestSchema.omit({ models: true }).extend({
  messages: ChatRequestSchema.shape.messages.max(MAX_TURN_MESSAGES, `at most ${MAX_TURN_MESSAGES} messages per request; the conversation tree keeps the history`),
  conversation_id: z.string().min(1).nullish(),
  parent_message_id: z.string().min(1).nullish(),
});
export type AgentChatRequest = z.infer<typeof AgentChatRequestSchema>;

export type AgentTurn = {
  input: ModelMessage[];
  overrides: NonNullable<AgentRunRequest['overrides']>;
};

export function toAgentTurn(body: AgentChatRequest): AgentTurn {
  const { conversation_id: _conversation, parent_message_id: _parent, ...chat } = body;
  const { request } = toChatInput(chat);
  const instructions = request.messages.flatMap((message) => (message.role === 'system' ? [message.content] : [])).join('\n\n');
  return {
    input: request.messages.filter((message) => message.role !== 'system'),
    overrides: {
      ...(instructions && { instructions }),
      ...(request.temperature !== undefined && { temperature: request.temperature }),
      ...(request.maxOutputTokens !== undefined && { maxOutputTokens: request.maxOutputTokens }),
      ...(request.reasoning && { reasoning: request.reasoning }),
      ...(request.responseFormat && { responseFormat: request.responseFormat }),
      ...(request.tools && { clientTools: request.tools }),
      ...(request.toolChoice && { toolChoice: request.toolChoice }),
    },
  };
}
