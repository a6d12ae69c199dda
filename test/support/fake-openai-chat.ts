/**
 * Chat behaviour of the fake OpenAI upstream (see fake-openai-upstream.ts for the
 * model-name table and the usage rules). Pure functions: a request body in, the
 * answer as OpenAI's wire JSON (whole or as stream chunks) out.
 */
import { z } from 'zod';
import { judgeAnswer } from './fake-openai-judge.ts';

const ChatBodySchema = z
  .object({
    model: z.string(),
    messages: z.array(z.object({ role: z.string(), content: z.unknown() }).loose()),
    tools: z.array(z.object({ function: z.object({ name: z.string(), parameters: z.unknown() }).loose() }).loose()).nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().nullish() }).loose().nullish(),
    max_completion_tokens: z.number().nullish(),
    max_tokens: z.number().nullish(),
  })
  .loose();
export type FakeChatBody = z.infer<typeof ChatBodySchema>;

export const parseFakeChatBody = (body: unknown) => ChatBodySchema.safeParse(body);

export type ChatPlan = {
  reasoning?: string;
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  finishReason: 'stop' | 'tool_calls' | 'length';
  usage: FakeUsage;
};
export type FakeUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
};

export const FAKE_CREATED = 1_700_000_000;
export const FAKE_REASONING = 'The user wants an answer. I will give it.';

/** Decides what the fake model says, from its name and the conversation. */
export function planChat(body: FakeChatBody): ChatPlan {
  const messages = body.messages;
  const lastUserText = textOf([...messages].reverse().find((message) => message.role === 'user')?.content);
  const firstTool = body.tools?.[0]?.function;
  let plan: Omit<ChatPlan, 'usage'>;
  const callOf = (tool: { name: string; parameters?: unknown }, index: number) => ({ id: `call_fake_${index}`, name: tool.name, arguments: JSON.stringify(argumentsFor(tool.parameters)) });
  if (body.model.includes('judge')) {
    plan = { text: judgeAnswer(body.model, lastUserText).text, finishReason: 'stop' };
  } else if (body.model.includes('tools-all') && firstTool !== undefined) {
    // Every declared tool in one answer (parallel calls); then one line per tool result.
    const results = messages.filter((message) => message.role === 'tool');
    plan =
      results.length === 0
        ? { toolCalls: (body.tools ?? []).map((tool, index) => callOf(tool.function, index)), finishReason: 'tool_calls' }
        : { text: `Tools returned: ${results.map((message) => textOf(message.content)).join(' | ')}`, finishReason: 'stop' };
  } else if (body.model.includes('phantom')) {
    // Calls a tool by a name it was never given, then reports what came back.
    const result = [...messages].reverse().find((message) => message.role === 'tool');
    plan =
      result === undefined
        ? { toolCalls: [{ id: 'call_fake_0', name: 'made_up_tool', arguments: '{}' }], finishReason: 'tool_calls' }
        : { text: `Tool made_up_tool returned: ${textOf(result.content)}`, finishReason: 'stop' };
  } else if (body.model.includes('loop') && firstTool !== undefined) {
    // Never done: calls the first declared tool again after every result, for tests of run bounds.
    const results = messages.filter((message) => message.role === 'tool').length;
    plan = { toolCalls: [callOf(firstTool, results)], finishReason: 'tool_calls' };
  } else if (body.model.includes('tool') && firstTool !== undefined) {
    const lastToolResult = [...messages].reverse().find((message) => message.role === 'tool');
    plan =
      lastToolResult === undefined
        ? { ...(body.model.includes('narrated') && { text: 'Let me check.' }), toolCalls: [callOf(firstTool, 0)], finishReason: 'tool_calls' }
        : { text: `Tool ${firstTool.name} returned: ${textOf(lastToolResult.content)}`, finishReason: 'stop' };
  } else {
    plan = { text: lastUserText, finishReason: 'stop' };
  }
  if (body.model.includes('reasoning')) plan = { reasoning: FAKE_REASONING, ...plan };
  // A token limit (one word = one token) cuts the answer text and reports `length`.
  const limit = body.max_completion_tokens ?? body.max_tokens;
  if (limit != null && plan.text !== undefined && countWords(plan.reasoning) + countWords(plan.text) > limit) {
    const words = plan.text.split(/\s+/).filter((word) => word !== '');
    plan = { ...plan, text: words.slice(0, Math.max(0, limit - countWords(plan.reasoning))).join(' '), finishReason: 'length' };
  }

  const promptCharacters = messages.reduce((total, message) => total + textOf(message.content).length, 0);
  const outputWords = countWords(plan.text) + countWords(plan.reasoning) + (plan.toolCalls ?? []).reduce((total, call) => total + countWords(`${call.name} ${call.arguments}`), 0);
  const promptTokens = Math.ceil(promptCharacters / 4);
  return {
    ...plan,
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: outputWords,
      total_tokens: promptTokens + outputWords,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: countWords(plan.reasoning),
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
  };
}

/** A `chat.completion` object, as OpenAI returns it (plus `reasoning_content` for reasoning models, as DeepSeek does). */
export function renderCompletion(id: string, model: string, plan: ChatPlan): Record<string, unknown> {
  return {
    id,
    object: 'chat.completion',
    created: FAKE_CREATED,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: plan.text ?? null,
          refusal: null,
          annotations: [],
          ...(plan.reasoning === undefined ? {} : { reasoning_content: plan.reasoning }),
          ...(plan.toolCalls === undefined ? {} : { tool_calls: plan.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }),
        },
        logprobs: null,
        finish_reason: plan.finishReason,
      },
    ],
    usage: plan.usage,
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

/**
 * The `chat.completion.chunk` objects of a streamed answer, in OpenAI's order: a role
 * chunk, one chunk per word (reasoning first), tool-call chunks (name, then the
 * arguments in pieces), an empty-delta chunk with `finish_reason`, and with
 * `include_usage` a final `choices: []` chunk carrying usage (earlier chunks then
 * carry `usage: null`).
 */
export function renderChunks(id: string, model: string, plan: ChatPlan, includeUsage: boolean): Array<Record<string, unknown>> {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: FAKE_CREATED,
    model,
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: Array<Record<string, unknown>> = [chunk({ role: 'assistant', content: plan.toolCalls === undefined ? '' : null, refusal: null })];
  for (const piece of splitWords(plan.reasoning)) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of splitWords(plan.text)) chunks.push(chunk({ content: piece }));
  for (const [index, call] of (plan.toolCalls ?? []).entries()) {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (let start = 0; start < call.arguments.length; start += 4) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(start, start + 4) } }] }));
    }
  }
  chunks.push(chunk({}, plan.finishReason));
  if (includeUsage) {
    chunks.push({
      id,
      object: 'chat.completion.chunk',
      created: FAKE_CREATED,
      model,
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
      choices: [],
      usage: plan.usage,
    });
  }
  return chunks;
}

/** Text of a message's `content`: a string, or the `text` parts of a part array. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: unknown) => (typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '')).join('');
}

export const countWords = (text: string | undefined): number => (text === undefined ? 0 : text.split(/\s+/).filter((word) => word !== '').length);

/** Words with their following whitespace, so the pieces concatenate back to the text. */
const splitWords = (text: string | undefined): string[] => (text === undefined ? [] : (text.match(/\S+\s*|\s+/g) ?? []));

/** Fills each required property with a fixed value of its type, so schema-validating tools accept the call. */
function argumentsFor(parameters: unknown): Record<string, unknown> {
  const schema = z
    .object({
      properties: z.record(z.string(), z.object({ type: z.unknown() }).loose()).nullish(),
      required: z.array(z.string()).nullish(),
    })
    .loose()
    .safeParse(parameters);
  if (!schema.success) return {};
  const fakeValueOf = (type: unknown): unknown => {
    if (type === 'number' || type === 'integer') return 1;
    if (type === 'boolean') return true;
    if (type === 'array') return [];
    return type === 'object' ? {} : 'fake';
  };
  const result: Record<string, unknown> = {};
  for (const name of schema.data.required ?? []) {
    const type = schema.data.properties?.[name]?.type;
    result[name] = fakeValueOf(type);
  }
  return result;
}
