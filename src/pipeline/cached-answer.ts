import { z } from 'zod';
import type { AssistantPart, FinishReason, ModelResponse, ModelStreamEvent, Usage } from '../core/model-types.ts';

/**
 * A stored answer of the response cache in canonical form: a whole response (the call was
 * not streamed) or the events of a stream. Either serves either kind of call: a stream
 * replays a response as events, a plain call folds events into a response, and each front-end
 * renders them in its own wire format.
 */
export type CachedAnswer = { kind: 'response'; response: ModelResponse } | { kind: 'events'; events: ModelStreamEvent[] };

const UsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});
const FinishReasonSchema = z.object({
  unified: z.enum(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']),
  raw: z.string().optional(),
});
const AssistantPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('reasoning'), text: z.string(), signature: z.string().optional(), redactedData: z.string().optional() }),
  z.object({ type: z.literal('tool-call'), id: z.string(), name: z.string(), arguments: z.string() }),
]);
const EventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('response-metadata'), id: z.string().optional(), model: z.string().optional() }),
  z.object({ type: z.literal('text-delta'), delta: z.string() }),
  z.object({ type: z.literal('reasoning-delta'), delta: z.string() }),
  z.object({ type: z.literal('reasoning-signature'), signature: z.string() }),
  z.object({ type: z.literal('reasoning-redacted'), data: z.string() }),
  z.object({ type: z.literal('tool-call-start'), index: z.number(), id: z.string(), name: z.string() }),
  z.object({ type: z.literal('tool-call-delta'), index: z.number(), argumentsDelta: z.string() }),
  z.object({ type: z.literal('usage'), usage: UsageSchema }),
  z.object({ type: z.literal('finish'), finishReason: FinishReasonSchema }),
]);
const CachedAnswerSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('response'),
    response: z.object({ id: z.string(), model: z.string(), content: z.array(AssistantPartSchema), usage: UsageSchema, finishReason: FinishReasonSchema }),
  }),
  z.object({ kind: z.literal('events'), events: z.array(EventSchema) }),
]);

/** A stored entry's text back as an answer; undefined for text no release of this code wrote (it is then a miss). */
export function parseCachedAnswer(text: string): CachedAnswer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = CachedAnswerSchema.safeParse(value);
  return parsed.success ? (parsed.data as CachedAnswer) : undefined;
}

/** Only an answer that ended on its own, with usage to price it by, is kept. */
export function isStorableAnswer(answer: CachedAnswer): boolean {
  if (answer.kind === 'response') return answer.response.finishReason.unified !== 'error';
  const finish = answer.events.findLast((event) => event.type === 'finish');
  return finish !== undefined && finish.finishReason.unified !== 'error' && answer.events.some((event) => event.type === 'usage');
}

/** The answer as the events of a stream, in the order a provider would have sent them. */
export function answerEvents(answer: CachedAnswer): ModelStreamEvent[] {
  if (answer.kind === 'events') return answer.events;
  const { response } = answer;
  const events: ModelStreamEvent[] = [{ type: 'response-metadata', id: response.id, model: response.model }];
  let toolIndex = 0;
  for (const part of response.content) {
    if (part.type === 'text') events.push({ type: 'text-delta', delta: part.text });
    else if (part.type === 'reasoning') {
      if (part.text) events.push({ type: 'reasoning-delta', delta: part.text });
      if (part.signature) events.push({ type: 'reasoning-signature', signature: part.signature });
      if (part.redactedData) events.push({ type: 'reasoning-redacted', data: part.redactedData });
    } else {
      events.push({ type: 'tool-call-start', index: toolIndex, id: part.id, name: part.name });
      if (part.arguments) events.push({ type: 'tool-call-delta', index: toolIndex, argumentsDelta: part.arguments });
      toolIndex += 1;
    }
  }
  events.push({ type: 'usage', usage: response.usage }, { type: 'finish', finishReason: response.finishReason });
  return events;
}

/** The answer as one response: a stream's deltas joined into the parts they built. */
export function answerResponse(answer: CachedAnswer): ModelResponse {
  if (answer.kind === 'response') return answer.response;
  const content: AssistantPart[] = [];
  const toolCalls = new Map<number, Extract<AssistantPart, { type: 'tool-call' }>>();
  let id = '';
  let model = '';
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let finishReason: FinishReason = { unified: 'other', raw: undefined };
  for (const event of answer.events) {
    const last = content.at(-1);
    switch (event.type) {
      case 'response-metadata':
        id = event.id ?? id;
        model = event.model ?? model;
        break;
      case 'text-delta':
        if (last?.type === 'text') last.text += event.delta;
        else content.push({ type: 'text', text: event.delta });
        break;
      case 'reasoning-delta':
        if (last?.type === 'reasoning') last.text += event.delta;
        else content.push({ type: 'reasoning', text: event.delta });
        break;
      case 'reasoning-signature':
        if (last?.type === 'reasoning') last.signature = event.signature;
        else content.push({ type: 'reasoning', text: '', signature: event.signature });
        break;
      case 'reasoning-redacted':
        content.push({ type: 'reasoning', text: '', redactedData: event.data });
        break;
      case 'tool-call-start': {
        const call = { type: 'tool-call' as const, id: event.id, name: event.name, arguments: '' };
        toolCalls.set(event.index, call);
        content.push(call);
        break;
      }
      case 'tool-call-delta': {
        const call = toolCalls.get(event.index);
        if (call) call.arguments += event.argumentsDelta;
        break;
      }
      case 'usage':
        usage = event.usage;
        break;
      case 'finish':
        finishReason = event.finishReason;
        break;
    }
  }
  return { id, model, content, usage, finishReason };
}

/** The usage the answer reported when it was first produced. */
export function answerUsage(answer: CachedAnswer): Usage {
  if (answer.kind === 'response') return answer.response.usage;
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  for (const event of answer.events) if (event.type === 'usage') usage = event.usage;
  return usage;
}
