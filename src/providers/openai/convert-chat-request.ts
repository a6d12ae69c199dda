/**
 * Canonical ModelRequest → OpenAI chat-completions request body.
 *
 * Lossy on purpose where OpenAI has no place for a field: cache-control hints, topK,
 * reasoning budgets and reasoning parts of earlier assistant turns are dropped
 * (OpenAI does not take reasoning back, and DeepSeek rejects `reasoning_content` in
 * input messages).
 */
import type { AssistantMessage, ModelMessage, ModelRequest, ToolChoice, ResponseFormat, UserPart } from '../../core/model-types.ts';
import { JunctionError } from '../../core/errors.ts';
import type { ProviderConfig } from '../adapter.ts';
import { applyNestedFields, nestedFieldsIn } from '../nested-fields.ts';

type JsonObject = Record<string, unknown>;

export type ConvertChatOptions = {
  stream: boolean;
  /** `openai-compatible` servers get `max_tokens`: many do not know `max_completion_tokens`. */
  kind: ProviderConfig['kind'];
  /** Extra body fields from `request.providerOptions[providerId]`, besides `providerOptions.openai`. */
  providerId?: string;
};

export function convertChatRequest(request: ModelRequest, options: ConvertChatOptions): JsonObject {
  const body: JsonObject = { model: request.model, messages: request.messages.map(convertMessage) };
  // Fields a front-end kept verbatim (logprobs, metadata, service_tier…) never replace the
  // model or the messages, and the canonical fields set below win over them. Copied in
  // rather than spread first into the literal: in Node 20's V8 a literal opening with a
  // spread gets a new hidden class per object, and the stores below then all went slow.
  const verbatim = request.providerOptions;
  if (verbatim !== undefined) {
    copyVerbatim(body, verbatim['openai']);
    if (options.providerId !== undefined && options.providerId !== 'openai') copyVerbatim(body, verbatim[options.providerId]);
  }
  if (request.tools !== undefined && request.tools.length > 0) {
    body['tools'] = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.parameters,
        ...(tool.strict === undefined ? {} : { strict: tool.strict }),
      },
    }));
  }
  setIfDefined(body, 'tool_choice', request.toolChoice === undefined ? undefined : convertToolChoice(request.toolChoice));
  setIfDefined(body, 'parallel_tool_calls', request.parallelToolCalls);
  setIfDefined(body, 'response_format', convertResponseFormat(request.responseFormat));
  setIfDefined(body, 'temperature', request.temperature);
  setIfDefined(body, 'top_p', request.topP);
  setIfDefined(body, options.kind === 'openai' ? 'max_completion_tokens' : 'max_tokens', request.maxOutputTokens);
  setIfDefined(body, 'stop', request.stop !== undefined && request.stop.length > 0 ? request.stop : undefined);
  setIfDefined(body, 'seed', request.seed);
  setIfDefined(body, 'user', request.user);
  setIfDefined(body, 'reasoning_effort', request.reasoning?.effort);
  if (options.stream) {
    body['stream'] = true;
    // Without this OpenAI sends no usage at all in a stream, and we bill by usage.
    body['stream_options'] = { include_usage: true };
  } else if ('stream' in body || 'stream_options' in body) {
    // Set to undefined, not deleted (JSON.stringify leaves them out either way): a delete
    // turns the object into a slow dictionary for the serializer.
    body['stream'] = undefined;
    body['stream_options'] = undefined;
  }
  applyNestedFields(body, nestedFieldsIn(verbatim?.['openai']));
  return body;
}

function convertMessage(message: ModelMessage): JsonObject {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      // A lone text part goes as a plain string: the widest-supported form among compatible servers.
      if (message.content.length === 1 && message.content[0]?.type === 'text') {
        return { role: 'user', content: message.content[0].text };
      }
      return { role: 'user', content: message.content.map(convertUserPart) };
    case 'assistant':
      return convertAssistantMessage(message);
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function convertUserPart(part: UserPart): JsonObject {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return imageUrlPart(part);
    case 'file': {
      const fileData = 'data' in part ? `data:${part.mediaType};base64,${part.data}` : part.url;
      // Chat completions take files inline only; a data: URL is inline in disguise.
      if (!fileData.startsWith('data:')) {
        throw new JunctionError('invalid_request', 'OpenAI chat completions accept files only as inline base64 data, not by URL');
      }
      return {
        type: 'file',
        file: { file_data: fileData, ...(part.filename === undefined ? {} : { filename: part.filename }) },
      };
    }
  }
}

/** An image as chat completions' `image_url` part, which Cohere's v2 Chat takes too: a URL, or the bytes as a data URL. */
export function imageUrlPart(part: Extract<UserPart, { type: 'image' }>) {
  const url = 'url' in part ? part.url : `data:${part.mediaType};base64,${part.data}`;
  return { type: 'image_url' as const, image_url: { url, ...(part.detail === undefined ? {} : { detail: part.detail }) } };
}

function convertAssistantMessage(message: AssistantMessage): JsonObject {
  let text = '';
  const toolCalls: JsonObject[] = [];
  for (const part of message.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call') {
      toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
    }
  }
  return {
    role: 'assistant',
    // OpenAI wants `null`, not "", next to tool calls with no text.
    content: text === '' && toolCalls.length > 0 ? null : text,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

function convertToolChoice(choice: ToolChoice): string | JsonObject {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

function convertResponseFormat(format: ResponseFormat | undefined): JsonObject | undefined {
  if (format === undefined || format.type !== 'json_schema') return format;
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      schema: format.schema,
      ...(format.strict === undefined ? {} : { strict: format.strict }),
      ...(format.description === undefined ? {} : { description: format.description }),
    },
  };
}

/** `fields` into `body`, but never the model, the messages, or (an assignment, not a spread) `__proto__`. */
function copyVerbatim(body: JsonObject, fields: Record<string, unknown> | undefined): void {
  if (fields === undefined) return;
  for (const key of Object.keys(fields)) {
    if (key !== 'model' && key !== 'messages' && key !== '__proto__') body[key] = fields[key];
  }
}

function setIfDefined(body: JsonObject, key: string, value: unknown): void {
  if (value !== undefined) body[key] = value;
}
