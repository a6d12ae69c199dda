import { z } from 'zod';
import { AgentChatRequestSchema } from './agents/api/agent-chat-request.ts';
import { FeedbackInputSchema } from './agents/feedback/feedback-schemas.ts';
import { StartEvaluationSchema, StartExperimentSchema } from './console/contract/evaluations.ts';
import { CompactRequestSchema, CreateResponseSchema } from './agents/responses/response-request-schema.ts';
import { ChatRequestSchema } from './gateway/chat-completions/chat-request-schema.ts';
import {
  BatchEmbedContentsRequestSchema,
  CountTokensRequestSchema as GeminiCountTokensSchema,
  EmbedContentRequestSchema,
  GenerateContentRequestSchema,
} from './gateway/gemini/gemini-request-schemas.ts';
import { CreateKeySchema, UpdateKeySchema } from './keys/key-input-schema.ts';
import { EmbeddingsRequestSchema } from './gateway/media/embeddings-request-schema.ts';
import { ImagesRequestSchema } from './gateway/media/images-route.ts';
import { ModerationsRequestSchema } from './gateway/media/moderations-route.ts';
import { SpeechRequestSchema } from './gateway/media/speech-route.ts';
import { TranscriptionFormSchema } from './gateway/media/transcriptions-route.ts';
import { CountTokensRequestSchema as MessagesCountTokensSchema, MessagesRequestSchema } from './gateway/messages/messages-request-schema.ts';

/**
 * The request body schemas, by component name: the very zod schemas the routes parse
 * with, converted to JSON Schema (their input side: what a client sends). Nothing here
 * restates a shape by hand.
 */
const BODIES = {
  ChatCompletionRequest: ChatRequestSchema,
  MessagesRequest: MessagesRequestSchema,
  MessagesCountTokensRequest: MessagesCountTokensSchema,
  EmbeddingsRequest: EmbeddingsRequestSchema,
  ImagesRequest: ImagesRequestSchema,
  SpeechRequest: SpeechRequestSchema,
  TranscriptionForm: TranscriptionFormSchema,
  ModerationsRequest: ModerationsRequestSchema,
  CreateKeyRequest: CreateKeySchema,
  UpdateKeyRequest: UpdateKeySchema,
  GenerateContentRequest: GenerateContentRequestSchema,
  GeminiCountTokensRequest: GeminiCountTokensSchema,
  EmbedContentRequest: EmbedContentRequestSchema,
  BatchEmbedContentsRequest: BatchEmbedContentsRequestSchema,
  AgentChatRequest: AgentChatRequestSchema,
  CreateResponseRequest: CreateResponseSchema,
  CompactRequest: CompactRequestSchema,
  FeedbackRequest: FeedbackInputSchema,
  StartEvaluationRequest: StartEvaluationSchema,
  StartExperimentRequest: StartExperimentSchema,
} satisfies Record<string, z.ZodType>;

type BodyName = keyof typeof BODIES;
type Security = 'bearer' | 'anthropic' | 'google';

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const ERROR_OPENAI = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type'],
      properties: { message: { type: 'string' }, type: { type: 'string' }, code: { type: ['string', 'null'] }, param: { type: ['string', 'null'] } },
    },
  },
};
const ERROR_ANTHROPIC = {
  type: 'object',
  required: ['type', 'error'],
  properties: { type: { const: 'error' }, error: { type: 'object', properties: { type: { type: 'string' }, message: { type: 'string' } } } },
};
const ERROR_GOOGLE = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, status: { type: 'string' } } } },
};

type Operation = { summary: string; body?: BodyName; multipart?: boolean; security: Security; answer?: 'json' | 'json-or-sse' | 'audio'; pathParams?: string[] };

/** Each protocol's error body and the credentials its routes take, in the order clients try them. */
const ERROR_REFS: Record<Security, string> = { bearer: 'Error', anthropic: 'AnthropicError', google: 'GoogleError' };
const SECURITY_SCHEMES: Record<Security, Array<Record<string, never[]>>> = {
  bearer: [{ bearer: [] }],
  anthropic: [{ bearer: [] }, { anthropicKey: [] }],
  google: [{ googleKey: [] }, { bearer: [] }],
};
const SUCCESS_ANSWERS: Record<NonNullable<Operation['answer']>, Record<string, unknown>> = {
  json: { description: 'The answer', content: { 'application/json': { schema: { type: 'object' } } } },
  'json-or-sse': {
    description: 'The answer; with `stream: true`, server-sent events',
    content: { 'application/json': { schema: { type: 'object' } }, 'text/event-stream': { schema: { type: 'string' } } },
  },
  audio: { description: 'The audio, as the provider produced it', content: { 'audio/mpeg': { schema: { type: 'string', contentMediaType: 'audio/mpeg' } } } },
};

function operation(tag: string, spec: Operation): Record<string, unknown> {
  const errorRef = ERROR_REFS[spec.security];
  const success = SUCCESS_ANSWERS[spec.answer ?? 'json'];
  const errors = Object.fromEntries(
    [
      ['400', 'Invalid request (the `param` names the field)'],
      ['401', 'Missing or invalid key'],
      ['402', 'Not enough credit'],
      ['403', 'Wrong key kind, spend limit reached or model not allowed'],
      ['404', 'No such model, agent or object'],
      ['413', 'Body too large'],
      ['429', 'Rate limited (Retry-After)'],
      ['503', 'Database or provider unavailable (Retry-After)'],
    ].map(([status, description]) => [status, { description, content: { 'application/json': { schema: ref(errorRef) } } }]),
  );
  return {
    tags: [tag],
    summary: spec.summary,
    security: SECURITY_SCHEMES[spec.security],
    ...(spec.pathParams && { parameters: spec.pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })) }),
    ...(spec.body && {
      requestBody: { required: true, content: { [spec.multipart ? 'multipart/form-data' : 'application/json']: { schema: ref(spec.body) } } },
    }),
    responses: { '200': success, ...errors },
  };
}

let cached: Record<string, unknown> | undefined;

/** One OpenAPI 3.1 document for `/v1`, `/v1beta` and `/agents/v1`, built once per process. */
export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const gateway = (summary: string, extra: Partial<Operation> = {}) => operation('Gateway (/v1)', { summary, security: 'bearer', ...extra });
  const gemini = (summary: string, body: BodyName) => operation('Gemini (/v1beta)', { summary, body, security: 'google', pathParams: ['model'], answer: 'json-or-sse' });
  const agents = (summary: string, extra: Partial<Operation> = {}) => operation('Agents (/agents/v1)', { summary, security: 'bearer', ...extra });
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Junction',
      version: '0.1.0',
      description:
        "Model gateway (OpenAI chat-completions, Anthropic messages and Gemini generate-content formats) and Agents API. Model keys (sk-jn-…) call /v1 and /v1beta, provisioning keys (pk-jn-…) manage /v1/keys, agent keys (sk-…) call /agents/v1. The OpenAI stateful APIs under /v1/{assistants,threads,files,vector_stores,batches,responses} are passed through unchanged (see OpenAI's reference).",
    },
    servers: [{ url: '/' }],
    tags: [{ name: 'Gateway (/v1)' }, { name: 'Gemini (/v1beta)' }, { name: 'Agents (/agents/v1)' }],
    paths: {
      '/v1/chat/completions': { post: gateway('Chat completion (OpenAI format), streamed or not', { body: 'ChatCompletionRequest', answer: 'json-or-sse' }) },
      '/v1/messages': { post: operation('Gateway (/v1)', { summary: 'Message (Anthropic format), streamed or not', body: 'MessagesRequest', security: 'anthropic', answer: 'json-or-sse' }) },
      '/v1/messages/count_tokens': { post: operation('Gateway (/v1)', { summary: 'Count input tokens (Anthropic format)', body: 'MessagesCountTokensRequest', security: 'anthropic' }) },
      '/v1/embeddings': { post: gateway('Embeddings', { body: 'EmbeddingsRequest' }) },
      '/v1/images/generations': { post: gateway('Image generation', { body: 'ImagesRequest' }) },
      '/v1/audio/speech': { post: gateway('Text to speech', { body: 'SpeechRequest', answer: 'audio' }) },
      '/v1/audio/transcriptions': { post: gateway('Transcription', { body: 'TranscriptionForm', multipart: true }) },
      '/v1/audio/translations': { post: gateway('Translation to English', { body: 'TranscriptionForm', multipart: true }) },
      '/v1/moderations': { post: gateway('Moderation', { body: 'ModerationsRequest' }) },
      '/v1/models': { get: gateway('The models this key may call, with prices and capabilities') },
      '/v1/models/{model}': { get: gateway('One model', { pathParams: ['model'] }) },
      '/v1/key': { get: gateway("The calling key's limits, spend and expiry") },
      '/v1/credits': { get: gateway("The account's credit") },
      '/v1/generations/{id}': { get: gateway('One of this key’s calls: tokens, cost, latency', { pathParams: ['id'] }) },
      '/v1/usage': { get: gateway("The account's usage log (provisioning keys)") },
      '/v1/keys': { get: gateway('List keys (provisioning keys)'), post: gateway('Create a key; the plain key is in the answer once', { body: 'CreateKeyRequest' }) },
      '/v1/keys/{id}': {
        get: gateway('One key', { pathParams: ['id'] }),
        patch: gateway('Change a key (null clears a setting)', { body: 'UpdateKeyRequest', pathParams: ['id'] }),
        delete: gateway('Delete a key', { pathParams: ['id'] }),
      },
      '/v1beta/models': { get: operation('Gemini (/v1beta)', { summary: 'The models this key may call (Gemini format; pageSize, pageToken)', security: 'google' }) },
      '/v1beta/models/{model}': { get: operation('Gemini (/v1beta)', { summary: 'One model (Gemini format)', security: 'google', pathParams: ['model'] }) },
      '/v1beta/models/{model}:generateContent': { post: gemini('Generate content (Gemini format)', 'GenerateContentRequest') },
      '/v1beta/models/{model}:streamGenerateContent': { post: gemini('Generate content, streamed (?alt=sse or a JSON array)', 'GenerateContentRequest') },
      '/v1beta/models/{model}:countTokens': { post: gemini('Count tokens (Gemini format)', 'GeminiCountTokensRequest') },
      '/v1beta/models/{model}:embedContent': { post: gemini('Embed one content (Gemini format)', 'EmbedContentRequest') },
      '/v1beta/models/{model}:batchEmbedContents': { post: gemini('Embed contents (Gemini format)', 'BatchEmbedContentsRequest') },
      '/agents/v1/models': { get: agents("The account's agents") },
      '/agents/v1/models/{id}': { get: agents('One agent, with its version', { pathParams: ['id'] }) },
      '/agents/v1/chat/completions': { post: agents('Chat with an agent (conversation tree ids in the answer)', { body: 'AgentChatRequest', answer: 'json-or-sse' }) },
      '/agents/v1/responses': { post: agents('Run an agent (Open Responses), streamed with semantic events or not', { body: 'CreateResponseRequest', answer: 'json-or-sse' }) },
      '/agents/v1/responses/compact': { post: agents('Compact a context into a sealed compaction item (Open Responses 2026-04-24)', { body: 'CompactRequest' }) },
      '/agents/v1/responses/{id}': { get: agents('A stored response', { pathParams: ['id'] }), delete: agents('Delete a stored response', { pathParams: ['id'] }) },
      '/agents/v1/responses/{id}/feedback': {
        post: agents('Feedback on a stored response: a thumb or a score from 0 to 1, a label, a comment', { body: 'FeedbackRequest', pathParams: ['id'] }),
        get: agents("A response's feedback, newest first", { pathParams: ['id'] }),
      },
      '/agents/v1/chat/completions/{message_id}/feedback': {
        post: agents('Feedback on a chat answer, by the message_id its reply carried', { body: 'FeedbackRequest', pathParams: ['message_id'] }),
        get: agents("A chat answer's feedback, newest first", { pathParams: ['message_id'] }),
      },
      '/agents/v1/evaluations': { post: agents('Evaluate an agent version over a dataset, billed to this key (202; runs in the background)', { body: 'StartEvaluationRequest' }) },
      '/agents/v1/evaluations/{id}': { get: agents("An evaluation's progress, per-case results and scores", { pathParams: ['id'] }) },
      '/agents/v1/evaluations/{id}/cancel': { post: agents('Cancel a running evaluation: no further case starts', { pathParams: ['id'] }) },
      '/agents/v1/experiments': { post: agents('Compare two versions on one dataset, case by case (202)', { body: 'StartExperimentRequest' }) },
      '/agents/v1/experiments/{id}': { get: agents('An experiment: scores with 95% intervals, regressions first', { pathParams: ['id'] }) },
      '/agents/v1/conversations': { get: agents("This key's conversations") },
      '/agents/v1/conversations/{id}': { get: agents('A conversation tree', { pathParams: ['id'] }), delete: agents('Delete a conversation', { pathParams: ['id'] }) },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <key>' },
        anthropicKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        googleKey: { type: 'apiKey', in: 'header', name: 'x-goog-api-key' },
      },
      schemas: {
        Error: ERROR_OPENAI,
        AnthropicError: ERROR_ANTHROPIC,
        GoogleError: ERROR_GOOGLE,
        ...Object.fromEntries(Object.entries(BODIES).map(([name, schema]) => [name, jsonSchemaOf(schema)])),
      },
    },
  };
  return cached;
}
