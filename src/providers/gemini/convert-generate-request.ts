import { parseToolArguments } from '../../core/tool-arguments.ts';
import { JunctionError } from '../../core/errors.ts';
import type { AssistantMessage, ModelMessage, ModelRequest, ReasoningConfig, ToolChoice, ToolMessage, UserPart } from '../../core/model-types.ts';
import { applyNestedFields, nestedFieldsIn } from '../nested-fields.ts';
import { convertJsonSchema } from './convert-json-schema.ts';
import type { GeminiContent, GeminiGenerateBody, GeminiGenerationConfig, GeminiPart } from './gemini-wire-schemas.ts';

const THINKING_BUDGETS = { minimal: 512, low: 1024, medium: 8192, high: 24576 } as const;

/**
 * Canonical request → generateContent body. Lossy cases (documented in docs/gateway.md):
 * `cacheControl` hints, `user`, `parallelToolCalls` and tool `strict` have no Gemini
 * counterpart and are dropped; JSON Schemas are narrowed to Gemini's subset (see
 * convert-json-schema.ts); reasoning text from other providers is sent back as
 * `thought` parts; Anthropic redacted thinking is dropped.
 */
export function convertGenerateRequest(request: ModelRequest): GeminiGenerateBody {
  const body: GeminiGenerateBody = { contents: messagesToGeminiContents(request.messages) };
  const system = request.messages.flatMap((message) => (message.role === 'system' ? [{ text: message.content }] : []));
  if (system.length > 0) body.systemInstruction = { parts: system };

  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => {
          const parameters = convertJsonSchema(tool.parameters);
          // Gemini rejects an OBJECT schema with no properties; a no-argument tool omits it.
          const hasProperties = Object.keys((parameters['properties'] as object | undefined) ?? {}).length > 0;
          return {
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            ...(hasProperties ? { parameters } : {}),
          };
        }),
      },
    ];
    if (request.toolChoice !== undefined) body.toolConfig = { functionCallingConfig: convertToolChoice(request.toolChoice) };
  }

  const options = { ...request.providerOptions?.['google'], ...request.providerOptions?.['gemini'] };
  const generationConfig: GeminiGenerationConfig = {
    ...convertGenerationConfig(request),
    ...(isRecord(options['generationConfig']) ? options['generationConfig'] : {}),
  };
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  // Verbatim extras (safetySettings, cachedContent, labels…); generationConfig was merged above.
  const { generationConfig: _merged, ...extras } = options;
  applyNestedFields(body, nestedFieldsIn(request.providerOptions?.['google']));
  return { ...body, ...extras };
}

function convertGenerationConfig(request: ModelRequest): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.stop !== undefined && request.stop.length > 0) config.stopSequences = request.stop;
  if (request.seed !== undefined) config.seed = request.seed;
  const format = request.responseFormat;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    // responseSchema (not responseJsonSchema) because every Gemini model accepts it.
    config.responseSchema = convertJsonSchema(format.schema);
  }
  const thinking = convertReasoning(request.reasoning);
  if (thinking !== undefined) config.thinkingConfig = thinking;
  return config;
}

/** `enabled: false` asks for budget 0 (models that cannot stop thinking, like 2.5 Pro, refuse it). */
export function convertReasoning(reasoning: ReasoningConfig | undefined): GeminiGenerationConfig['thinkingConfig'] {
  if (reasoning === undefined) return undefined;
  if (reasoning.enabled === false) return { thinkingBudget: 0 };
  // -1 is Gemini's "dynamic" budget: the model decides how long to think.
  const budget = reasoning.budgetTokens ?? (reasoning.effort === undefined ? -1 : THINKING_BUDGETS[reasoning.effort]);
  return { thinkingBudget: budget, includeThoughts: true };
}

function convertToolChoice(choice: ToolChoice): NonNullable<GeminiGenerateBody['toolConfig']>['functionCallingConfig'] {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

/** Messages → alternating user/model contents; function responses ride in user turns. */
export function messagesToGeminiContents(messages: ModelMessage[]): GeminiContent[] {
  const contents: GeminiContent[] = [];
  // Tool messages may lack a name, but Gemini's functionResponse needs one: remember the
  // name of every call id the assistant made, the latest call winning on reuse (call_0…).
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'system') continue;
    let role: GeminiContent['role'];
    let parts: GeminiPart[];
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') toolNames.set(part.id, part.name);
      role = 'model';
      parts = convertAssistant(message);
    } else {
      role = 'user';
      parts = message.role === 'user' ? message.content.map(convertUserPart) : [convertToolResult(message, toolNames)];
    }
    if (parts.length === 0) continue;
    const previous = contents.at(-1);
    // Gemini wants one turn per role; parallel function responses must share one content.
    if (previous !== undefined && previous.role === role) previous.parts.push(...parts);
    else contents.push({ role, parts });
  }
  return contents;
}

function convertUserPart(part: UserPart): GeminiPart {
  if (part.type === 'text') return { text: part.text };
  if ('data' in part) return { inlineData: { mimeType: part.mediaType, data: part.data } };
  const dataUrl = DATA_URL.exec(part.url);
  if (dataUrl?.[1] !== undefined && dataUrl[2] !== undefined) {
    return { inlineData: { mimeType: dataUrl[1], data: dataUrl[2] } };
  }
  const mimeType = part.type === 'file' ? part.mediaType : guessImageMimeType(part.url);
  return { fileData: { mimeType, fileUri: part.url } };
}

/**
 * Reasoning parts map back to Gemini's layout: text becomes a `thought` part, and a
 * signature moves to the next non-thought part (text or functionCall). That is where
 * Gemini puts signatures, and where Gemini 3 insists on finding them next to a function
 * call; a front-end that folded streamed thoughts and signature into one reasoning part
 * still round-trips. A signature with nothing after it stays on the last thought part.
 */
function convertAssistant(message: AssistantMessage): GeminiPart[] {
  const parts: GeminiPart[] = [];
  let pendingSignature: string | undefined;
  const withSignature = (part: GeminiPart): GeminiPart => {
    const signed = pendingSignature === undefined ? part : { ...part, thoughtSignature: pendingSignature };
    pendingSignature = undefined;
    return signed;
  };
  for (const part of message.content) {
    if (part.type === 'reasoning') {
      if (part.redactedData !== undefined) continue;
      if (part.text !== '') parts.push({ text: part.text, thought: true });
      pendingSignature = part.signature ?? pendingSignature;
    } else if (part.type === 'text') {
      if (part.text !== '' || pendingSignature !== undefined) parts.push(withSignature({ text: part.text }));
    } else {
      parts.push(withSignature({ functionCall: { name: part.name, args: parseToolArguments(part.arguments) } }));
    }
  }
  const last = parts.at(-1);
  if (pendingSignature !== undefined && last?.thought === true) last.thoughtSignature = pendingSignature;
  return parts;
}

function convertToolResult(message: ToolMessage, toolNames: Map<string, string>): GeminiPart {
  const name = message.name ?? toolNames.get(message.toolCallId);
  if (name === undefined) {
    throw new JunctionError('invalid_request', `tool result "${message.toolCallId}" has no name and matches no earlier tool call; Gemini needs the function name`, { param: 'messages' });
  }
  // Gemini wants an object: a JSON object result goes as is, anything else is wrapped.
  const value = parseJson(message.content);
  let response: Record<string, unknown> = { output: value ?? message.content };
  if (message.isError === true) response = { error: value ?? message.content };
  else if (isRecord(value)) response = value;
  return { functionResponse: { name, response } };
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic' };
function guessImageMimeType(url: string): string {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  return (extension === undefined ? undefined : IMAGE_TYPES[extension]) ?? 'image/jpeg';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
