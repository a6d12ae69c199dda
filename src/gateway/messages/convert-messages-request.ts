import { JunctionError } from '../../core/errors.ts';
import type { AssistantPart, CacheControl, ModelMessage, ModelRequest, ReasoningConfig, ToolChoice, ToolMessage, UserPart } from '../../core/model-types.ts';
import type { CacheControlInput, ContentBlock, CountTokensRequest, MessageParam, MessagesRequest } from './messages-request-schema.ts';

/**
 * Anthropic Messages body → canonical request. Anthropic-only fields ride in
 * `providerOptions.anthropic` (spread verbatim into the body by the Anthropic adapter),
 * so an anthropic/… model loses nothing. Lossy cases for other providers:
 *
 * - `metadata`, `service_tier`, `speed`, `inference_geo`, top-level `cache_control`,
 *   `output_config` and `thinking.display` / `{type:'adaptive'}` are Anthropic-only.
 *   `metadata.user_id` is also copied to canonical `user` (OpenAI's `user`).
 * - `cache_control` on text/image/document/tool_result blocks, tools and system is kept
 *   as `cacheControl`; on tool_use blocks and inside tool_result content it is dropped.
 * - tool_result content is canonically a string: text blocks are joined with "\n";
 *   images and documents inside a tool_result move into a user message right after
 *   the tool messages (every provider can see them there).
 * - In a user turn, tool results always come first (as canonical `tool` messages),
 *   then the remaining blocks as one user message, even if the client interleaved them
 *   (Anthropic itself requires tool results first).
 * - text `citations`, tool_use `caller`/`toolset_name` and document `context` are
 *   dropped (accepted only so response content can be echoed back as history).
 * - `thinking: {type:'adaptive'}` becomes `reasoning.enabled` without a budget, so the
 *   Anthropic adapter still computes a budget for max_tokens before the verbatim
 *   `thinking` wins; other providers just switch reasoning on.
 * - `output_config.effort` `xhigh`/`max` become canonical `high`.
 */
export type ConvertedMessagesRequest = {
  /** The catalog id exactly as the client sent it. */
  model: string;
  request: Omit<ModelRequest, 'model'>;
  stream: boolean;
};

export function convertMessagesBody(body: MessagesRequest): ConvertedMessagesRequest {
  const request = convertPrompt(body);
  request.maxOutputTokens = body.max_tokens;
  if (body.stop_sequences !== undefined && body.stop_sequences.length > 0) request.stop = body.stop_sequences;
  if (body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== undefined) request.topP = body.top_p;
  if (body.top_k !== undefined) request.topK = body.top_k;
  const userId = body.metadata?.user_id;
  if (userId != null) request.user = userId;

  const anthropic: Record<string, unknown> = { ...request.providerOptions?.['anthropic'] };
  if (body.metadata !== undefined) anthropic['metadata'] = body.metadata;
  if (body.service_tier !== undefined) anthropic['service_tier'] = body.service_tier;
  if (body.inference_geo != null) anthropic['inference_geo'] = body.inference_geo;
  if (Object.keys(anthropic).length > 0) request.providerOptions = { ...request.providerOptions, anthropic };
  return { model: body.model, request, stream: body.stream === true };
}

/** The prompt side shared by /v1/messages and /v1/messages/count_tokens. */
export function convertPrompt(body: CountTokensRequest): Omit<ModelRequest, 'model'> {
  const messages: ModelMessage[] = [...systemMessages(body.system ?? [])];
  const toolNames = new Map<string, string>();
  body.messages.forEach((message, index) => messages.push(...convertMessage(message, index, toolNames)));

  const request: Omit<ModelRequest, 'model'> = { messages };
  if (body.tools !== undefined && body.tools.length > 0) {
    request.tools = body.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.input_schema,
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
      ...cacheControlField(tool.cache_control),
    }));
  }
  const choice = body.tool_choice;
  if (choice !== undefined) {
    request.toolChoice = convertToolChoice(choice);
    if (choice.type !== 'none' && choice.disable_parallel_tool_use === true) request.parallelToolCalls = false;
  }
  const reasoning = convertReasoning(body);
  if (reasoning !== undefined) request.reasoning = reasoning;
  const format = body.output_config?.format;
  if (format != null) request.responseFormat = { type: 'json_schema', name: 'output', schema: format.schema };

  const anthropic: Record<string, unknown> = {};
  // Only forms the canonical shape cannot express travel verbatim; plain enabled/disabled
  // thinking is rebuilt by the adapter from `reasoning`.
  if (body.thinking?.type === 'adaptive' || (body.thinking?.type === 'enabled' && body.thinking.display != null)) {
    anthropic['thinking'] = body.thinking;
  }
  if (body.output_config !== undefined) anthropic['output_config'] = body.output_config;
  if (body.cache_control != null) anthropic['cache_control'] = body.cache_control;
  if (body.speed != null) anthropic['speed'] = body.speed;
  if (Object.keys(anthropic).length > 0) request.providerOptions = { anthropic };
  return request;
}

function systemMessages(system: Array<{ text: string; cache_control?: CacheControlInput | null }>): ModelMessage[] {
  return system.map((block) => ({ role: 'system', content: block.text, ...cacheControlField(block.cache_control) }));
}

function convertMessage(message: MessageParam, index: number, toolNames: Map<string, string>): ModelMessage[] {
  if (message.role === 'system') return systemMessages(message.content);
  const blocks: ContentBlock[] = message.content;
  const where = (blockIndex: number) => `messages.${index}.content.${blockIndex}`;
  if (message.role === 'assistant') {
    const parts = blocks.map((block, blockIndex) => assistantPart(block, where(blockIndex)));
    for (const part of parts) if (part.type === 'tool-call') toolNames.set(part.id, part.name);
    return [{ role: 'assistant', content: parts }];
  }

  const toolMessages: ToolMessage[] = [];
  const userParts: UserPart[] = [];
  const movedFromToolResults: UserPart[] = [];
  blocks.forEach((block, blockIndex) => {
    if (block.type !== 'tool_result') {
      userParts.push(userPart(block, where(blockIndex)));
      return;
    }
    const texts: string[] = [];
    for (const item of block.content ?? []) {
      if (item.type === 'text') texts.push(item.text);
      else movedFromToolResults.push(userPart(item, where(blockIndex)));
    }
    const name = toolNames.get(block.tool_use_id);
    toolMessages.push({
      role: 'tool',
      toolCallId: block.tool_use_id,
      ...(name === undefined ? {} : { name }),
      content: texts.join('\n'),
      ...(block.is_error === true ? { isError: true } : {}),
      ...cacheControlField(block.cache_control),
    });
  });
  const user = [...movedFromToolResults, ...userParts];
  return user.length > 0 ? [...toolMessages, { role: 'user', content: user }] : toolMessages;
}

function userPart(block: ContentBlock, param: string): UserPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text, ...cacheControlField(block.cache_control) };
    case 'image': {
      const cache = cacheControlField(block.cache_control);
      return block.source.type === 'url' ? { type: 'image', url: block.source.url, ...cache } : { type: 'image', data: block.source.data, mediaType: block.source.media_type, ...cache };
    }
    case 'document': {
      const extra = { ...(block.title == null ? {} : { filename: block.title }), ...cacheControlField(block.cache_control) };
      const source = block.source;
      // Anthropic URL documents are PDFs; a text source is carried as base64 text/plain,
      // which the Anthropic adapter turns back into a text source.
      if (source.type === 'url') return { type: 'file', url: source.url, mediaType: 'application/pdf', ...extra };
      const data = source.type === 'text' ? Buffer.from(source.data, 'utf8').toString('base64') : source.data;
      return { type: 'file', data, mediaType: source.media_type, ...extra };
    }
    default:
      throw new JunctionError('invalid_request', `A user message cannot contain a ${block.type} block.`, { param });
  }
}

function assistantPart(block: ContentBlock, param: string): AssistantPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text, ...cacheControlField(block.cache_control) };
    case 'thinking':
      // '' is what we render for reasoning that never had a signature (another provider's);
      // echoed back it must stay unsigned, or the Anthropic adapter would send a bad one.
      return { type: 'reasoning', text: block.thinking, ...(block.signature === '' ? {} : { signature: block.signature }) };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redactedData: block.data };
    case 'tool_use':
      return { type: 'tool-call', id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) };
    default:
      throw new JunctionError('invalid_request', `An assistant message cannot contain a ${block.type} block.`, { param });
  }
}

function convertToolChoice(choice: NonNullable<CountTokensRequest['tool_choice']>): ToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'tool', name: choice.name };
  }
}

const EFFORTS = { low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' } as const;

function convertReasoning(body: CountTokensRequest): ReasoningConfig | undefined {
  const thinking = body.thinking;
  const effort = body.output_config?.effort;
  const reasoning: ReasoningConfig = {};
  if (thinking?.type === 'enabled') Object.assign(reasoning, { enabled: true, budgetTokens: thinking.budget_tokens });
  if (thinking?.type === 'adaptive') reasoning.enabled = true;
  if (thinking?.type === 'disabled') reasoning.enabled = false;
  if (effort != null) reasoning.effort = EFFORTS[effort];
  return Object.keys(reasoning).length > 0 ? reasoning : undefined;
}

function cacheControlField(value: CacheControlInput | null | undefined): { cacheControl?: CacheControl } {
  if (value == null) return {};
  return { cacheControl: value.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: value.ttl } };
}
