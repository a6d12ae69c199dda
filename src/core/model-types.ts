/**
 * Canonical model-call types. Every front-end (chat-completions, messages, gemini,
 * agents) translates its wire format to and from these; every provider adapter
 * translates these to and from its upstream. N front-ends × M providers = N + M
 * translators.
 */

/** Provider-specific hints a front-end keeps so a same-provider upstream loses nothing. */
export type CacheControl = { type: 'ephemeral'; ttl?: string };

export type TextPart = { type: 'text'; text: string; cacheControl?: CacheControl };
/** An image by URL (http(s) or data:) or by inline base64 data. */
export type ImagePart =
  | { type: 'image'; url: string; detail?: 'auto' | 'low' | 'high'; cacheControl?: CacheControl }
  | { type: 'image'; data: string; mediaType: string; detail?: 'auto' | 'low' | 'high'; cacheControl?: CacheControl };
/** A document (PDF, text…) given inline as base64 or by URL. */
export type FilePart =
  | { type: 'file'; data: string; mediaType: string; filename?: string; cacheControl?: CacheControl }
  | { type: 'file'; url: string; mediaType: string; filename?: string; cacheControl?: CacheControl };
export type UserPart = TextPart | ImagePart | FilePart;

export type ReasoningPart = {
  type: 'reasoning';
  text: string;
  /** Opaque provider signature (Anthropic thinking) that must be echoed back verbatim. */
  signature?: string;
  /** Redacted reasoning payload some providers return instead of text. */
  redactedData?: string;
};
export type ToolCallPart = {
  type: 'tool-call';
  id: string;
  name: string;
  /** JSON text of the arguments, exactly as the model produced it. */
  arguments: string;
};
export type AssistantPart = TextPart | ReasoningPart | ToolCallPart;

export type SystemMessage = { role: 'system'; content: string; cacheControl?: CacheControl };
export type UserMessage = { role: 'user'; content: UserPart[] };
export type AssistantMessage = { role: 'assistant'; content: AssistantPart[] };
export type ToolMessage = {
  role: 'tool';
  toolCallId: string;
  /** Tool name, when the front-end knows it (Gemini's functionResponse needs it). */
  name?: string;
  content: string;
  isError?: boolean;
  cacheControl?: CacheControl;
};
export type ModelMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export type ToolDefinition = {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  strict?: boolean;
  cacheControl?: CacheControl;
};

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

export type ResponseFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';
export type ReasoningConfig = {
  effort?: ReasoningEffort;
  /** Token budget for thinking (Anthropic budget_tokens, Gemini thinkingBudget). */
  budgetTokens?: number;
  /** False turns reasoning off where a provider allows it. */
  enabled?: boolean;
};

export type ModelRequest = {
  /** Upstream model name (already resolved from the catalog id). */
  model: string;
  messages: ModelMessage[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  responseFormat?: ResponseFormat;
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stop?: string[];
  seed?: number;
  user?: string;
  reasoning?: ReasoningConfig;
  /**
   * Fields a front-end understood but the canonical shape does not carry, keyed by the
   * provider that honours them (e.g. `{ anthropic: { metadata: {...} } }`). An adapter
   * reads only its own key; others ignore it (the documented lossy cases).
   */
  providerOptions?: Record<string, Record<string, unknown>>;
};

export type Usage = {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (a subset of inputTokens). */
  cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache (a subset of inputTokens). */
  cacheWriteTokens?: number;
  /** Output tokens spent on reasoning (a subset of outputTokens). */
  reasoningTokens?: number;
};

export type UnifiedFinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';
export type FinishReason = { unified: UnifiedFinishReason; raw: string | undefined };

/** One event of a streamed model call, in the order the model produced it. */
export type ModelStreamEvent =
  | { type: 'response-metadata'; id?: string; model?: string }
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'reasoning-signature'; signature: string }
  | { type: 'reasoning-redacted'; data: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; finishReason: FinishReason };

export type ModelResponse = {
  id: string;
  model: string;
  content: AssistantPart[];
  usage: Usage;
  finishReason: FinishReason;
};

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 });
