import { JunctionError } from '../../core/errors.ts';
import type { AssistantPart, ModelMessage, ModelRequest, ResponseFormat, ToolChoice, UserPart } from '../../core/model-types.ts';
import type { ChatInput } from '../../pipeline/chat-pipeline.ts';
import type { ChatMessage, ChatRequest } from './chat-request-schema.ts';
import { toProviderPreferences } from '../../routing/provider-preferences.ts';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

const textOf = (content: string | Array<{ type: 'text'; text: string }>): string => (typeof content === 'string' ? content : content.map((part) => part.text).join(''));

function userParts(content: Extract<ChatMessage, { role: 'user' }>['content']): UserPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part, index): UserPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image_url') {
      return { type: 'image', url: part.image_url.url, ...(part.image_url.detail && { detail: part.image_url.detail }) };
    }
    const match = part.file.file_data ? DATA_URL.exec(part.file.file_data) : null;
    if (!match?.[1] || match[2] === undefined) {
      throw new JunctionError('invalid_request', 'File parts need `file_data` as a base64 data URL (file_id references are not supported).', {
        param: `messages.content.${index}.file`,
      });
    }
    return { type: 'file', mediaType: match[1], data: match[2], ...(part.file.filename && { filename: part.file.filename }) };
  });
}

function assistantParts(message: Extract<ChatMessage, { role: 'assistant' }>): AssistantPart[] {
  const parts: AssistantPart[] = [];
  if (message.reasoning) parts.push({ type: 'reasoning', text: message.reasoning });
  const content = message.content;
  const text = typeof content === 'string' ? content : (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
  if (text) parts.push({ type: 'text', text });
  for (const call of message.tool_calls ?? []) parts.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments });
  return parts;
}

export function toCanonicalMessages(messages: readonly ChatMessage[]): ModelMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(message.content) };
      case 'user':
        return { role: 'user', content: userParts(message.content) };
      case 'assistant':
        for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
        return { role: 'assistant', content: assistantParts(message) };
      case 'tool': {
        const name = toolNames.get(message.tool_call_id) ?? message.name;
        return { role: 'tool', toolCallId: message.tool_call_id, content: textOf(message.content), ...(name && { name }) };
      }
    }
  });
}

function responseFormat(format: ChatRequest['response_format']): ResponseFormat | undefined {
  if (!format) return undefined;
  if (format.type !== 'json_schema') return format;
  const spec = format.json_schema;
  return {
    type: 'json_schema',
    name: spec.name,
    schema: spec.schema ?? { type: 'object' },
    ...(spec.strict != null && { strict: spec.strict }),
    ...(spec.description && { description: spec.description }),
  };
}

function toolChoice(choice: ChatRequest['tool_choice']): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  return typeof choice === 'string' ? choice : { type: 'tool', name: choice.function.name };
}

/** Fields only OpenAI-format upstreams understand; other providers drop them (docs/gateway.md, "Lossy cases"). */
const OPENAI_ONLY = ['presence_penalty', 'frequency_penalty', 'logit_bias', 'service_tier', 'metadata', 'store', 'verbosity'] as const;

/**
 * A validated chat-completions body → the pipeline's canonical call, built by assignment:
 * a literal of fourteen conditional spreads and a fromEntries over seven small arrays made
 * and copied objects on every request for fields most requests do not have.
 */
export function toChatInput(body: ChatRequest): ChatInput {
  const request: Omit<ModelRequest, 'model'> = { messages: toCanonicalMessages(body.messages) };
  if (body.tools) {
    request.tools = body.tools.map((tool) => ({
      name: tool.function.name,
      parameters: tool.function.parameters ?? { type: 'object', properties: {} },
      ...(tool.function.description && { description: tool.function.description }),
      ...(tool.function.strict != null && { strict: tool.function.strict }),
    }));
  }
  const choice = toolChoice(body.tool_choice);
  if (choice) request.toolChoice = choice;
  if (body.parallel_tool_calls !== undefined) request.parallelToolCalls = body.parallel_tool_calls;
  const format = responseFormat(body.response_format);
  if (format) request.responseFormat = format;
  if (body.temperature != null) request.temperature = body.temperature;
  if (body.top_p != null) request.topP = body.top_p;
  if (body.top_k !== undefined) request.topK = body.top_k;
  const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  if (maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
  const stop = typeof body.stop === 'string' ? [body.stop] : (body.stop ?? undefined);
  if (stop) request.stop = stop;
  if (body.seed != null) request.seed = body.seed;
  if (body.user) request.user = body.user;
  const reasoning = toReasoning(body);
  if (reasoning) request.reasoning = reasoning;
  let openaiOnly: Record<string, unknown> | undefined;
  for (const field of OPENAI_ONLY) {
    if (body[field] != null) (openaiOnly ??= {})[field] = body[field];
  }
  if (openaiOnly) request.providerOptions = { openai: openaiOnly };
  const input: ChatInput = { model: body.model, request };
  if (body.models) input.fallbackModels = body.models.filter((id) => id !== body.model);
  if (body.provider) input.providerPreferences = toProviderPreferences(body.provider);
  return input;
}

function toReasoning(body: ChatRequest): ModelRequest['reasoning'] {
  const effort = body.reasoning?.effort ?? body.reasoning_effort;
  if (!effort && !body.reasoning?.max_tokens && body.reasoning?.enabled === undefined) return undefined;
  return {
    ...(effort && { effort }),
    ...(body.reasoning?.max_tokens && { budgetTokens: body.reasoning.max_tokens }),
    ...(body.reasoning?.enabled !== undefined && { enabled: body.reasoning.enabled }),
  };
}
