import type { ModelMessage, ToolCallPart } from '../core/model-types.ts';

/** The result given to a tool call the conversation moved on from. */
export const MOVED_ON_RESULT = 'Not run: the conversation moved on before this call was answered.';

/**
 * The transcript with every tool call answered before the conversation goes on. A turn
 * continued from inside a tool step (from a response waiting for approval, or from the
 * assistant message of a client tool call, with a user message instead of the results)
 * would send `assistant{tool_calls}` then `user`, which providers refuse: each call left
 * without a result gets one saying it did not run, right after the results that came.
 * Calls at the very end stay open: their results are what the run waits for.
 */
export function answerUnansweredToolCalls(messages: readonly ModelMessage[]): ModelMessage[] {
  const answered: ModelMessage[] = [];
  let open: ToolCallPart[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      open = open.filter((call) => call.id !== message.toolCallId);
    } else {
      for (const call of open) answered.push({ role: 'tool', toolCallId: call.id, name: call.name, content: MOVED_ON_RESULT, isError: true });
      open = message.role === 'assistant' ? message.content.filter((part): part is ToolCallPart => part.type === 'tool-call') : [];
    }
    answered.push(message);
  }
  return answered;
}
