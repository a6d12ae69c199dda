import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../core/model-types.ts';
import type { CancelSignal } from '../core/cancel-signal.ts';
import type { BedrockSettings } from './bedrock/bedrock-auth.ts';
import type { ServiceAccountKey } from './vertex/service-account.ts';

/** How a provider is reached. One per configured provider (openai, anthropic, gemini, ollama…). */
export type ProviderConfig = {
  /** The `provider` part of `provider/model` ids, e.g. `openai`, `ollama`. */
  id: string;
  /** Which wire format the upstream speaks. */
  kind: 'openai' | 'anthropic' | 'gemini' | 'openai-compatible' | 'bedrock' | 'cohere' | 'mistral';
  /** Base URL including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** Extra headers sent upstream on every call (e.g. Azure's `api-key`, OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /** Query parameters appended to every call (e.g. Azure's `api-version`). */
  query?: Record<string, string>;
  /** Per-attempt timeout until response headers arrive, in ms. */
  timeoutMs?: number;
  /** Set for Azure OpenAI: deployments in the path; the key as `api-key`, or an Entra token as a bearer. */
  azure?: { bearerToken?: string };
  /** Set for Google Vertex AI: `baseUrl` is the regional endpoint's origin, the model's address and the token come from here. */
  vertex?: VertexSettings;
  /** Set for Amazon Bedrock: the signing region and the AWS credentials (`apiKey`, when set, is a Bedrock API key sent instead). */
  bedrock?: BedrockSettings;
};

/** Where a Vertex AI deployment lives and the service account it calls as. */
export type VertexSettings = { project: string; location: string; key: ServiceAccountKey };

export type EmbeddingRequest = {
  model: string;
  input: string[];
  dimensions?: number;
  /** Gemini task type (RETRIEVAL_QUERY, RETRIEVAL_DOCUMENT…); ignored by others. */
  taskType?: string;
};
export type EmbeddingResponse = {
  model: string;
  embeddings: number[][];
  usage: { inputTokens: number };
};

export type ImageRequest = {
  model: string;
  prompt: string;
  n: number;
  /** Remaining OpenAI image parameters (size, quality, style, response_format, background…), passed verbatim. */
  params: Record<string, unknown>;
};
export type ImageResponse = {
  created: number;
  data: Array<{ url?: string; b64_json?: string; revised_prompt?: string }>;
  /** Token usage some image models report (gpt-image-1); absent for per-image models. */
  usage?: { inputTokens: number; outputTokens: number };
  /** Any other top-level fields the upstream returned, echoed to the client. */
  extra: Record<string, unknown>;
};

export type ModerationRequest = { model: string; input: unknown };
export type ModerationResponse = { id: string; model: string; results: unknown[] };

export type SpeechRequest = {
  model: string;
  input: string;
  /** A built-in voice's name, or a custom voice (`{ id: "voice_…" }`), passed as given. */
  voice: string | { id: string };
  /** response_format, speed, instructions… passed verbatim. */
  params: Record<string, unknown>;
};
/** Audio bytes streamed from upstream; the caller pipes `body` to the client. */
export type SpeechResponse = { contentType: string; body: AsyncIterable<Uint8Array> };

export type TranscriptionRequest = {
  model: string;
  task: 'transcription' | 'translation';
  file: { data: Buffer; filename: string; contentType: string };
  /** Other form fields (language, prompt, response_format, temperature…), passed verbatim; an array is one part per value. */
  fields: Record<string, string | string[]>;
};
export type TranscriptionResponse = {
  /** Body to return to the client, as the upstream sent it (JSON or text). */
  contentType: string;
  body: Buffer;
  /** Duration of the audio in seconds, as reported upstream or measured from the file. */
  durationSeconds: number | undefined;
  /** Token usage when the model bills by token (gpt-4o-transcribe). */
  usage?: { inputTokens: number; outputTokens: number };
};

export type CallOptions = { signal: CancelSignal };

/** Input tokens a request would cost, as the provider counts them. */
export type TokenCount = { inputTokens: number };

/**
 * A provider adapter: translates canonical requests to one upstream wire format and
 * the upstream's answers back. Methods a provider does not offer are absent.
 * Errors from upstream are thrown as `UpstreamError` (see upstream-error.ts).
 */
export interface ProviderAdapter {
  readonly config: ProviderConfig;
  streamChat(request: ModelRequest, options: CallOptions): AsyncIterable<ModelStreamEvent>;
  generateChat(request: ModelRequest, options: CallOptions): Promise<ModelResponse>;
  /** The provider's own token count for a request (free upstream); absent, or undefined for a model it cannot count: the gateway counts locally. */
  countTokens?(request: ModelRequest, options: CallOptions): Promise<TokenCount | undefined>;
  embed?(request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResponse>;
  generateImages?(request: ImageRequest, options: CallOptions): Promise<ImageResponse>;
  moderate?(request: ModerationRequest, options: CallOptions): Promise<ModerationResponse>;
  speech?(request: SpeechRequest, options: CallOptions): Promise<SpeechResponse>;
  transcribe?(request: TranscriptionRequest, options: CallOptions): Promise<TranscriptionResponse>;
}
