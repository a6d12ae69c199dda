import { JunctionError } from '../../core/errors.ts';
import type { AssistantPart, ModelMessage, ModelRequest, ReasoningConfig, ReasoningEffort, ResponseFormat, ToolChoice, ToolMessage, UserPart } from '../../core/model-types.ts';
import type { Content, CountTokensRequest, GenerateContentRequest, GenerationConfig, Part } from './gemini-request-schemas.ts';
import { geminiSchemaToJsonSchema } from './gemini-schema-to-json-schema.ts';

/**
 * generateContent body → canonical request (the model comes from the URL path).
 *
 * Function-call ids: Gemini clients usually send none. A call without one gets
 * `call_<n>`, n counting every functionCall in `contents` from 0, so the same history
 * always yields the same ids; a functionResponse without an id takes the earliest
 * unanswered call of the same name. A response that matches no call is a 400: every
 * non-Gemini upstream would reject a tool result without its call.
 *
 * Thoughts: consecutive `thought` parts fold into one reasoning part, and the
 * `thoughtSignature` Gemini puts on the following answer or functionCall part joins
 * it; this is the layout the Gemini adapter unfolds again and the one Anthropic
 * thinking (text + signature) needs.
 *
 * Lossy for non-Google models (forwarded verbatim to google/… models through
 * `providerOptions.google`): safetySettings, labels, serviceTier, toolConfig as sent
 * (`allowedFunctionNames` beyond one name, mode VALIDATED), thinkingConfig as sent
 * (`thinkingLevel`), the original responseSchema, presencePenalty, frequencyPenalty,
 * responseLogprobs, logprobs, responseModalities, mediaResolution. Always dropped:
 * function declaration `response`/`behavior`, part `partMetadata`, displayName.
 */
export type ConvertedGenerateRequest = {
  request: Omit<ModelRequest, 'model'>;
  /** thinkingConfig.includeThoughts: only then do responses show thought parts. */
  includeThoughts: boolean;
};

export function convertGenerateBody(body: GenerateContentRequest): ConvertedGenerateRequest {
  const messages: ModelMessage[] = [];
  for (const part of body.systemInstruction?.parts ?? []) {
    if (part.text == null) throw new JunctionError('invalid_request', 'systemInstruction parts must be text.', { param: 'systemInstruction' });
    messages.push({ role: 'system', content: part.text });
  }
  messages.push(...geminiContentsToMessages(body.contents));
  const request: Omit<ModelRequest, 'model'> = { messages };

  const declarations = (body.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []);
  if (declarations.length > 0) {
    request.tools = declarations.map((declaration) => ({
      name: declaration.name,
      ...(declaration.description == null ? {} : { description: declaration.description }),
      parameters: declaration.parametersJsonSchema ?? (declaration.parameters == null ? { type: 'object', properties: {} } : geminiSchemaToJsonSchema(declaration.parameters)),
    }));
  }
  const toolChoice = convertToolChoice(body.toolConfig?.functionCallingConfig);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;

  const config = body.generationConfig ?? {};
  if (config.temperature != null) request.temperature = config.temperature;
  if (config.topP != null) request.topP = config.topP;
  if (config.topK != null) request.topK = config.topK;
  if (config.maxOutputTokens != null) request.maxOutputTokens = config.maxOutputTokens;
  if (config.stopSequences != null && config.stopSequences.length > 0) request.stop = config.stopSequences;
  if (config.seed != null) request.seed = config.seed;
  const responseFormat = convertResponseFormat(config);
  if (responseFormat !== undefined) request.responseFormat = responseFormat;
  const reasoning = convertThinking(config.thinkingConfig);
  if (reasoning !== undefined) request.reasoning = reasoning;

  const google = googleOptions(body, config);
  if (Object.keys(google).length > 0) request.providerOptions = { google };
  return { request, includeThoughts: config.thinkingConfig?.includeThoughts === true };
}

/** countTokens takes bare `contents` or a whole `generateContentRequest`. */
export function convertCountTokensBody(body: CountTokensRequest): Omit<ModelRequest, 'model'> {
  if (body.generateContentRequest != null) {
    const { model: _pathWins, ...generate } = body.generateContentRequest;
    return convertGenerateBody(generate).request;
  }
  if (body.contents == null || body.contents.length === 0) {
    throw new JunctionError('invalid_request', 'countTokens needs contents or generateContentRequest.', { param: 'contents' });
  }
  return { messages: geminiContentsToMessages(body.contents) };
}

type PendingCall = { id: string; name: string; answered: boolean };

/** A Gemini client's contents → Junction messages; function responses become tool messages answering the calls before them. */
export function geminiContentsToMessages(contents: Content[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const calls: PendingCall[] = [];
  contents.forEach((content, index) => {
    const param = `contents.${index}`;
    if (content.role === 'model') {
      const parts = modelParts(content.parts, calls, param);
      if (parts.length > 0) messages.push({ role: 'assistant', content: parts });
      return;
    }
    const tools: ToolMessage[] = [];
    const user: UserPart[] = [];
    content.parts.forEach((part, partIndex) => {
      const where = `${param}.parts.${partIndex}`;
      if (part.functionResponse != null) tools.push(toolMessage(part.functionResponse, calls, where));
      else if (part.functionCall != null) throw new JunctionError('invalid_request', 'functionCall parts belong to model turns.', { param: where });
      else {
        const converted = userPart(part);
        if (converted !== undefined) user.push(converted);
      }
    });
    // Tool results answer the preceding model turn, so they go before the user's own parts.
    messages.push(...tools);
    if (user.length > 0) messages.push({ role: 'user', content: user });
  });
  return messages;
}

function modelParts(parts: Part[], calls: PendingCall[], param: string): AssistantPart[] {
  const out: AssistantPart[] = [];
  let thoughts: string[] | undefined;
  const flushReasoning = (signature: string | null | undefined) => {
    if (thoughts === undefined && signature == null) return;
    out.push({ type: 'reasoning', text: (thoughts ?? []).join(''), ...(signature == null ? {} : { signature }) });
    thoughts = undefined;
  };
  parts.forEach((part, index) => {
    if (part.thought === true) {
      (thoughts ??= []).push(part.text ?? '');
      if (part.thoughtSignature != null) flushReasoning(part.thoughtSignature);
      return;
    }
    flushReasoning(part.thoughtSignature);
    if (part.functionCall != null) {
      const id = part.functionCall.id ?? `call_${calls.length}`;
      calls.push({ id, name: part.functionCall.name, answered: false });
      out.push({ type: 'tool-call', id, name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) });
    } else if (part.text != null) {
      if (part.text !== '') out.push({ type: 'text', text: part.text });
    } else if (part.inlineData != null || part.fileData != null || part.functionResponse != null) {
      throw new JunctionError('invalid_request', 'model turns may only contain text, thoughts and functionCall parts.', {
        param: `${param}.parts.${index}`,
      });
    }
  });
  flushReasoning(undefined);
  return out;
}

function toolMessage(response: NonNullable<Part['functionResponse']>, calls: PendingCall[], param: string): ToolMessage {
  const call = response.id == null ? calls.find((candidate) => !candidate.answered && candidate.name === response.name) : calls.find((candidate) => candidate.id === response.id);
  if (call === undefined) {
    throw new JunctionError('invalid_request', `functionResponse "${response.name}" does not answer any earlier functionCall in contents.`, { param });
  }
  call.answered = true;
  const value = response.response ?? {};
  const keys = Object.keys(value);
  // Gemini's convention is {output: …} or {error: …}; anything else is the result itself.
  const onlyKey = keys.length === 1 ? keys[0] : undefined;
  const isError = onlyKey === 'error';
  const wrapped = onlyKey === 'output' || onlyKey === 'error' ? value[onlyKey] : value;
  return {
    role: 'tool',
    toolCallId: call.id,
    name: response.name,
    content: typeof wrapped === 'string' ? wrapped : JSON.stringify(wrapped ?? null),
    ...(isError ? { isError: true } : {}),
  };
}

function userPart(part: Part): UserPart | undefined {
  if (part.text != null) return { type: 'text', text: part.text };
  if (part.inlineData != null) {
    const { mimeType, data } = part.inlineData;
    return mimeType.startsWith('image/') ? { type: 'image', data, mediaType: mimeType } : { type: 'file', data, mediaType: mimeType };
  }
  if (part.fileData != null) {
    const mimeType = part.fileData.mimeType ?? 'application/octet-stream';
    const url = part.fileData.fileUri;
    return mimeType.startsWith('image/') ? { type: 'image', url } : { type: 'file', url, mediaType: mimeType };
  }
  return undefined;
}

function convertToolChoice(config: NonNullable<GenerateContentRequest['toolConfig']>['functionCallingConfig']): ToolChoice | undefined {
  switch (config?.mode) {
    case 'AUTO':
    case 'VALIDATED':
      return 'auto';
    case 'NONE':
      return 'none';
    case 'ANY': {
      const names = config.allowedFunctionNames ?? [];
      const [only] = names;
      return names.length === 1 && only !== undefined ? { type: 'tool', name: only } : 'required';
    }
    default:
      return undefined;
  }
}

function convertResponseFormat(config: GenerationConfig): ResponseFormat | undefined {
  if (config.responseJsonSchema != null) return { type: 'json_schema', name: 'response', schema: config.responseJsonSchema };
  if (config.responseSchema != null) {
    return { type: 'json_schema', name: 'response', schema: geminiSchemaToJsonSchema(config.responseSchema) };
  }
  return config.responseMimeType === 'application/json' ? { type: 'json_object' } : undefined;
}

const LEVELS: Record<string, ReasoningEffort> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' };

/** Budget 0 turns thinking off, -1 is Gemini's "model decides", a level maps to an effort. */
function convertThinking(config: GenerationConfig['thinkingConfig']): ReasoningConfig | undefined {
  if (config == null) return undefined;
  const reasoning: ReasoningConfig = {};
  const budget = config.thinkingBudget;
  if (budget === 0) reasoning.enabled = false;
  else if (budget != null) Object.assign(reasoning, { enabled: true, ...(budget > 0 ? { budgetTokens: budget } : {}) });
  const effort = config.thinkingLevel == null ? undefined : LEVELS[config.thinkingLevel.toUpperCase()];
  if (effort !== undefined) Object.assign(reasoning, { enabled: true, effort });
  // Asking to see thoughts implies wanting some.
  if (config.includeThoughts === true && reasoning.enabled === undefined) reasoning.enabled = true;
  return Object.keys(reasoning).length > 0 ? reasoning : undefined;
}

const GOOGLE_GENERATION_KEYS = ['thinkingConfig', 'responseSchema', 'presencePenalty', 'frequencyPenalty', 'responseLogprobs', 'logprobs', 'responseModalities', 'mediaResolution'] as const;

/** What a google/… model gets verbatim (the Gemini adapter merges generationConfig, spreads the rest). */
function googleOptions(body: GenerateContentRequest, config: GenerationConfig): Record<string, unknown> {
  const google: Record<string, unknown> = {};
  if (body.safetySettings != null) google['safetySettings'] = body.safetySettings;
  if (body.labels != null) google['labels'] = body.labels;
  if (body.serviceTier != null) google['serviceTier'] = body.serviceTier;
  if (body.toolConfig != null) google['toolConfig'] = body.toolConfig;
  const generationConfig: Record<string, unknown> = {};
  for (const key of GOOGLE_GENERATION_KEYS) if (config[key] != null) generationConfig[key] = config[key];
  if (Object.keys(generationConfig).length > 0) google['generationConfig'] = generationConfig;
  return google;
}
