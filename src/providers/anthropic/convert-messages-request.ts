import { parseToolArguments } from '../../core/tool-arguments.ts';
import type { AssistantPart, CacheControl, ModelMessage, ModelRequest, ReasoningConfig, ResponseFormat, ToolChoice, UserPart } from '../../core/model-types.ts';
import { applyNestedFields, nestedFieldsIn } from '../nested-fields.ts';
import type { AnthropicCacheControl, AnthropicMessagesBody, AnthropicRequestBlock, AnthropicRequestMessage, AnthropicTextBlock, AnthropicToolChoice } from './anthropic-wire-schemas.ts';
import { alternatingTurns } from '../alternating-turns.ts';

/** Anthropic requires max_tokens; this is what we ask for when neither caller nor catalog set one. */
export const DEFAULT_MAX_TOKENS = 4096;
/** Anthropic's smallest accepted thinking budget. */
const MIN_THINKING_BUDGET = 1024;
const THINKING_BUDGETS = { minimal: 1024, low: 4096, medium: 8192, high: 16384 } as const;

/**
 * Canonical request → Messages API body. Lossy cases (documented in docs/gateway.md):
 * `seed`, `user` and `parallelToolCalls: true` have no Anthropic counterpart and are
 * dropped; `parallelToolCalls: false` becomes `disable_parallel_tool_use`; with thinking
 * enabled, temperature/top_p/top_k are dropped because Anthropic rejects them alongside
 * thinking; `responseFormat` json is emulated by a system instruction (see below).
 */
export function convertMessagesRequest(request: ModelRequest): AnthropicMessagesBody {
  const system = request.messages.flatMap((message) => (message.role === 'system' ? [textBlock(message.content, message.cacheControl)] : []));
  const formatInstruction = responseFormatInstruction(request.responseFormat);
  if (formatInstruction !== undefined) system.push({ type: 'text', text: formatInstruction });

  const thinkingBudget = thinkingBudgetFor(request.reasoning);
  const body: AnthropicMessagesBody = {
    model: request.model,
    messages: convertMessages(request.messages),
    max_tokens: maxTokensFor(request.maxOutputTokens, thinkingBudget),
  };
  if (system.length > 0) body.system = system;
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      input_schema: tool.parameters,
      ...cacheControlField(tool.cacheControl),
    }));
  }
  const toolChoice = convertToolChoice(request.toolChoice, request.parallelToolCalls);
  // Anthropic rejects tool_choice without tools, so a lone 'none' or 'auto' is simply dropped.
  if (toolChoice !== undefined && body.tools !== undefined) body.tool_choice = toolChoice;
  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = request.stop;
  if (thinkingBudget === undefined) {
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.topP !== undefined) body.top_p = request.topP;
    if (request.topK !== undefined) body.top_k = request.topK;
  } else {
    body.thinking = { type: 'enabled', budget_tokens: thinkingBudget };
  }
  // Front-ends put fields like metadata or service_tier here; they win over ours on purpose.
  // Without any, the body goes as built: `{ ...body, … }` gives each body a hidden class of its own.
  const verbatim = request.providerOptions?.['anthropic'];
  if (verbatim === undefined) return body;
  applyNestedFields(body, nestedFieldsIn(verbatim));
  return { ...body, ...verbatim };
}

/** Chat-style messages → alternating user/assistant turns; tool results ride in user turns. */
export const convertMessages = (messages: ModelMessage[]): AnthropicRequestMessage[] => alternatingTurns(messages, convertContent);

function convertContent(message: Exclude<ModelMessage, { role: 'system' }>): AnthropicRequestBlock[] {
  switch (message.role) {
    case 'user':
      return message.content.map(convertUserPart);
    case 'assistant':
      return message.content.flatMap(convertAssistantPart);
    case 'tool':
      return [
        {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: message.content,
          ...(message.isError === true ? { is_error: true } : {}),
          ...cacheControlField(message.cacheControl),
        },
      ];
  }
}

function convertUserPart(part: UserPart): AnthropicRequestBlock {
  switch (part.type) {
    case 'text':
      return textBlock(part.text, part.cacheControl);
    case 'image': {
      const source = 'url' in part ? urlOrDataSource(part.url) : { type: 'base64' as const, media_type: part.mediaType, data: part.data };
      return { type: 'image', source, ...cacheControlField(part.cacheControl) };
    }
    case 'file': {
      const title = part.filename === undefined ? {} : { title: part.filename };
      if ('url' in part) return { type: 'document', source: urlOrDataSource(part.url), ...title, ...cacheControlField(part.cacheControl) };
      // Anthropic takes plain text documents as text, not base64; PDFs stay base64.
      const source =
        part.mediaType === 'text/plain'
          ? { type: 'text' as const, media_type: 'text/plain' as const, data: Buffer.from(part.data, 'base64').toString('utf8') }
          : { type: 'base64' as const, media_type: part.mediaType, data: part.data };
      return { type: 'document', source, ...title, ...cacheControlField(part.cacheControl) };
    }
  }
}

function convertAssistantPart(part: AssistantPart): AnthropicRequestBlock[] {
  switch (part.type) {
    case 'text':
      // Anthropic rejects empty text blocks, which some clients send next to tool calls.
      return part.text === '' ? [] : [textBlock(part.text, part.cacheControl)];
    case 'reasoning':
      if (part.redactedData !== undefined) return [{ type: 'redacted_thinking', data: part.redactedData }];
      // Thinking without a signature came from another provider: Anthropic would reject it.
      return part.signature === undefined ? [] : [{ type: 'thinking', thinking: part.text, signature: part.signature }];
    case 'tool-call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: parseToolArguments(part.arguments) }];
  }
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function urlOrDataSource(url: string): { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } {
  const match = DATA_URL.exec(url);
  if (match?.[1] !== undefined && match[2] !== undefined) return { type: 'base64', media_type: match[1], data: match[2] };
  return { type: 'url', url };
}

function textBlock(text: string, cacheControl: CacheControl | undefined): AnthropicTextBlock {
  return { type: 'text', text, ...cacheControlField(cacheControl) };
}

function cacheControlField(cacheControl: CacheControl | undefined): { cache_control?: AnthropicCacheControl } {
  if (cacheControl === undefined) return {};
  return { cache_control: cacheControl.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: cacheControl.ttl } };
}

function convertToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): AnthropicToolChoice | undefined {
  const disableParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...disableParallel } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...disableParallel };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  return { type: 'tool', name: choice.name, ...disableParallel };
}

/** An explicit budget wins; otherwise the effort picks one; no reasoning config means no thinking. */
export function thinkingBudgetFor(reasoning: ReasoningConfig | undefined): number | undefined {
  if (reasoning === undefined || reasoning.enabled === false) return undefined;
  if (reasoning.budgetTokens !== undefined) return Math.max(MIN_THINKING_BUDGET, reasoning.budgetTokens);
  if (reasoning.effort !== undefined) return THINKING_BUDGETS[reasoning.effort];
  return reasoning.enabled === true ? THINKING_BUDGETS.medium : undefined;
}

/**
 * Anthropic counts thinking inside max_tokens and requires max_tokens > budget_tokens.
 * When the requested limit would leave no room for an answer, the answer keeps its
 * requested size on top of the budget (the pipeline's reservation should use the result).
 */
export function maxTokensFor(requested: number | undefined, thinkingBudget: number | undefined): number {
  const answer = requested ?? DEFAULT_MAX_TOKENS;
  if (thinkingBudget === undefined) return answer;
  return answer > thinkingBudget ? answer : thinkingBudget + answer;
}

/**
 * Anthropic has no JSON mode. We emulate it with a system instruction rather than a
 * forced tool: a forced tool cannot be combined with thinking or with the caller's own
 * tool_choice, and it would turn streamed text into tool-call deltas that every mapper
 * then has to turn back. The cost: the JSON is not schema-enforced upstream.
 */
export function responseFormatInstruction(format: ResponseFormat | undefined): string | undefined {
  if (format === undefined || format.type === 'text') return undefined;
  const base = 'Respond with a single JSON value only: no prose, no Markdown code fences.';
  if (format.type === 'json_object') return `${base} The value must be a JSON object.`;
  const description = format.description === undefined ? '' : ` (${format.description})`;
  return `${base} It must conform to the JSON Schema "${format.name}"${description}:\n${JSON.stringify(format.schema)}`;
}
