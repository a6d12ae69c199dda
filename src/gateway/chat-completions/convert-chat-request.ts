import { JunctionError } from '../../core/errors.ts';
import type { AssistantPart, ModelMessage, ModelRequest, ResponseFormat, ToolChoice, UserPart } from '../../core/model-types.ts';
import type { ChatInput } from '../../pipeline/chat-pipeline.ts';
import type { ChatMessage, ChatRequest } from './chat-request-schema.ts';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

const textOf = (content: string | Array<{ type: 'text'; text: string }>): string =>
  typeof content === 'string' ? content : content.map((part) => part.text).join('');

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
        const name = toolNames.get(message.tool_call_id);
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

/** Fields only OpenAI-format upstreams understand; other providers drop them (README, "Lossy cases"). */
const OPENAI_ONLY = ['presence_penalty', 'frequency_penalty', 'logit_bias', 'service_tier', 'metadata', 'store', 'verbosity'] as const;

/** A validated chat-completions body → the pipeline's canonical call. */
export function toChatInput(body: ChatRequest): ChatInput {
  const openaiOnly = Object.fromEntries(OPENAI_ONLY.flatMap((field) => (body[field] == null ? [] : [[field, body[field]]])));
  const effort = body.reasoning?.effort ?? body.reasoning_effort;
  const reasoning =
    effort || body.reasoning?.max_tokens || body.reasoning?.enabled !== undefined
      ? {
          ...(effort && { effort }),
          ...(body.reasoning?.max_tokens && { budgetTokens: body.reasoning.max_tokens }),
          ...(body.reasoning?.enabled !== undefined && { enabled: body.reasoning.enabled }),
        }
      : undefined;
  const stop = body.stop == null ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const request: Omit<ModelRequest, 'model'> = {
    messages: toCanonicalMessages(body.messages),
    ...(body.tools && {
      tools: body.tools.map((tool) => ({
        name: tool.function.name,
        parameters: tool.function.parameters ?? { type: 'object', properties: {} },
        ...(tool.function.description && { description: tool.function.description }),
        ...(tool.function.strict != null && { strict: tool.function.strict }),
      })),
    }),
    ...(toolChoice(body.tool_choice) && { toolChoice: toolChoice(body.tool_choice) }),
    ...(body.parallel_tool_calls !== undefined && { parallelToolCalls: body.parallel_tool_calls }),
    ...(responseFormat(body.response_format) && { responseFormat: responseFormat(body.response_format) }),
    ...(body.temperature != null && { temperature: body.temperature }),
    ...(body.top_p != null && { topP: body.top_p }),
    ...(body.top_k !== undefined && { topK: body.top_k }),
    ...(maxOutputTokens !== undefined && { maxOutputTokens }),
    ...(stop && { stop }),
    ...(body.seed != null && { seed: body.seed }),
    ...(body.user && { user: body.user }),
    ...(reasoning && { reasoning }),
    ...(Object.keys(openaiOnly).length > 0 && { providerOptions: { openai: openaiOnly } }),
  };
  return { model: body.model, ...(body.models && { fallbackModels: body.models.filter((id) => id !== body.model) }), request };
}
