import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { FinishReason } from '../../core/model-types.ts';
import { toCanonicalMessage } from '../langchain-messages.ts';
import type { RunEvent } from '../run-events.ts';

/** What a checkpoint holds of a run: its messages, its step count, and the last step's finish reason. */
export type CheckpointedTurn = { messages: BaseMessage[]; steps: number; finish: FinishReason | undefined };

/**
 * The events a run's checkpointed messages were streamed as, made again from the messages:
 * each answer as its model step (reasoning, text, calls, finish, usage), each tool result as
 * its call started and finished. A run taken over sends these for the messages its response
 * did not show yet, so the items it ends with are the ones the dead process would have sent.
 * The usage of a step is what its message carries; tool costs are not in the messages (the
 * run's totals in the checkpoint count them).
 */
export function replayedEvents(turn: CheckpointedTurn, from: number): RunEvent[] {
  const replayed = turn.messages.slice(from);
  const answers = replayed.filter(isAnswer).length;
  const callsById = new Map<string, { name: string; arguments: string }>();
  const events: RunEvent[] = [];
  let seen = 0;
  let step = turn.steps - answers;
  for (const [offset, message] of replayed.entries()) {
    const canonical = toCanonicalMessage(message);
    if (canonical.role === 'assistant') {
      seen += 1;
      step = turn.steps - answers + seen;
      const last = from + offset === turn.messages.length - 1;
      events.push({ type: 'model-started', step });
      let index = 0;
      for (const part of canonical.content) {
        if (part.type === 'reasoning' && part.text) events.push({ type: 'model-event', step, event: { type: 'reasoning-delta', delta: part.text } });
        if (part.type === 'text') events.push({ type: 'model-event', step, event: { type: 'text-delta', delta: part.text } });
        if (part.type === 'tool-call') {
          callsById.set(part.id, { name: part.name, arguments: part.arguments });
          events.push({ type: 'model-event', step, event: { type: 'tool-call-start', index, id: part.id, name: part.name } });
          if (part.arguments) events.push({ type: 'model-event', step, event: { type: 'tool-call-delta', index, argumentsDelta: part.arguments } });
          index += 1;
        }
      }
      const calls = index > 0;
      // Only the last step's finish reason is kept (a cut answer is `length`); an earlier one called tools or answered.
      const finish: FinishReason = last && turn.finish ? turn.finish : { unified: calls ? 'tool-calls' : 'stop', raw: undefined };
      events.push({ type: 'model-event', step, event: { type: 'finish', finishReason: finish } });
      events.push(modelFinished(message as AIMessage, step));
    } else if (canonical.role === 'tool') {
      const call = callsById.get(canonical.toolCallId);
      const name = call?.name ?? canonical.name ?? '';
      events.push({ type: 'tool-started', step, callId: canonical.toolCallId, name, arguments: call?.arguments ?? '' });
      events.push({ type: 'tool-finished', step, callId: canonical.toolCallId, name, ok: canonical.isError !== true, output: canonical.content, costMicros: 0, durationMs: 0 });
    }
  }
  return events;
}

const isAnswer = (message: BaseMessage): boolean => message.getType() === 'ai';

/** A step's usage and cost as its answer carries them (the pipeline's outcome, kept on the message). */
function modelFinished(message: AIMessage, step: number): RunEvent {
  const metadata = (message.response_metadata ?? {}) as { model?: unknown; generationId?: unknown; costMicros?: unknown };
  return {
    type: 'model-finished',
    step,
    model: typeof metadata.model === 'string' ? metadata.model : '',
    generationId: typeof metadata.generationId === 'string' ? metadata.generationId : '',
    usage: { inputTokens: message.usage_metadata?.input_tokens ?? 0, outputTokens: message.usage_metadata?.output_tokens ?? 0 },
    costMicros: typeof metadata.costMicros === 'number' ? metadata.costMicros : 0,
  };
}
