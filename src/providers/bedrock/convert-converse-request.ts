import { JunctionError } from '../../core/errors.ts';
import type { AssistantPart, CacheControl, ModelMessage, ModelRequest, ToolChoice, UserPart } from '../../core/model-types.ts';
import { parseToolArguments } from '../../core/tool-arguments.ts';
import { maxTokensFor, responseFormatInstruction, thinkingBudgetFor } from '../anthropic/convert-messages-request.ts';
import type { ConverseBody, ConverseCachePoint, ConverseMessage, ConverseRequestBlock, ConverseToolChoice } from './bedrock-wire-schemas.ts';
import { alternatingTurns } from '../alternating-turns.ts';

const CACHE_POINT: ConverseCachePoint = { cachePoint: { type: 'default' } };

/**
 * Canonical request → Converse body. Lossy cases (documented in docs/gateway.md): `seed`,
 * `user` and `parallelToolCalls` have no Converse counterpart and are dropped; tool choice
 * `none` sends no tools (Converse has no such choice); `topK` and thinking go in
 * `additionalModelRequestFields` for Anthropic models only, whose native API Bedrock
 * hands them to; `responseFormat` json is a system instruction (Converse has no JSON mode for every model); a
 * `cacheControl` mark becomes a cache point after the block it marks.
 */
export function convertConverseRequest(request: ModelRequest): ConverseBody {
  const body: ConverseBody = { messages: convertMessages(request.messages) };
  const system: NonNullable<ConverseBody['system']> = [];
  for (const message of request.messages) {
    if (message.role !== 'system') continue;
    system.push({ text: message.content });
    if (message.cacheControl !== undefined) system.push(CACHE_POINT);
  }
  const formatInstruction = responseFormatInstruction(request.responseFormat);
  if (formatInstruction !== undefined) system.push({ text: formatInstruction });
  if (system.length > 0) body.system = system;

  const anthropicModel = isAnthropicModel(request.model);
  const thinkingBudget = anthropicModel ? thinkingBudgetFor(request.reasoning) : undefined;
  const inference: NonNullable<ConverseBody['inferenceConfig']> = {};
  // With thinking, Anthropic needs room for the answer beyond the budget; else the model's own default applies.
  if (thinkingBudget !== undefined) inference.maxTokens = maxTokensFor(request.maxOutputTokens, thinkingBudget);
  else if (request.maxOutputTokens !== undefined) inference.maxTokens = request.maxOutputTokens;
  // Anthropic refuses sampling settings alongside thinking, on Bedrock as directly.
  if (thinkingBudget === undefined) {
    if (request.temperature !== undefined) inference.temperature = request.temperature;
    if (request.topP !== undefined) inference.topP = request.topP;
  }
  if (request.stop !== undefined && request.stop.length > 0) inference.stopSequences = request.stop;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;

  const additional: Record<string, unknown> = {};
  if (anthropicModel && thinkingBudget === undefined && request.topK !== undefined) additional['top_k'] = request.topK;
  if (thinkingBudget !== undefined) additional['thinking'] = { type: 'enabled', budget_tokens: thinkingBudget };
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional;

  const toolConfig = convertTools(request, body.messages);
  if (toolConfig !== undefined) body.toolConfig = toolConfig;

  // Fields like guardrailConfig or performanceConfig; they win over ours on purpose.
  const verbatim = request.providerOptions?.['bedrock'];
  return verbatim === undefined ? body : { ...body, ...verbatim };
}

/** Anthropic's models on Bedrock: `anthropic.…`, or behind an inference profile (`us.anthropic.…`, `global.anthropic.…`). */
const isAnthropicModel = (model: string): boolean => /(^|\.|\/)anthropic\./.test(model);

function convertTools(request: ModelRequest, messages: ConverseMessage[]): ConverseBody['toolConfig'] {
  const tools = request.tools ?? [];
  const choice: ToolChoice | undefined = request.toolChoice;
  // Converse refuses a history with tool blocks and no toolConfig, so `none` keeps the tools then.
  if (tools.length === 0 || (choice === 'none' && !usesTools(messages))) return undefined;
  const specs: NonNullable<ConverseBody['toolConfig']>['tools'] = [];
  for (const tool of tools) {
    specs.push({ toolSpec: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), inputSchema: { json: tool.parameters } } });
    if (tool.cacheControl !== undefined) specs.push(CACHE_POINT);
  }
  const toolChoice = convertToolChoice(choice);
  return toolChoice === undefined ? { tools: specs } : { tools: specs, toolChoice };
}

const usesTools = (messages: ConverseMessage[]): boolean => messages.some((message) => message.content.some((block) => 'toolUse' in block || 'toolResult' in block));

function convertToolChoice(choice: ToolChoice | undefined): ConverseToolChoice | undefined {
  if (choice === undefined || choice === 'none') return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  return { tool: { name: choice.name } };
}

const convertMessages = (messages: ModelMessage[]): ConverseMessage[] => alternatingTurns(messages, convertContent);

function convertContent(message: Exclude<ModelMessage, { role: 'system' }>): ConverseRequestBlock[] {
  switch (message.role) {
    case 'user':
      return message.content.flatMap(convertUserPart);
    case 'assistant':
      return message.content.flatMap(convertAssistantPart);
    case 'tool':
      return withCachePoint(
        { toolResult: { toolUseId: message.toolCallId, content: [{ text: message.content }], ...(message.isError === true ? { status: 'error' as const } : {}) } },
        message.cacheControl,
      );
  }
}

function convertUserPart(part: UserPart): ConverseRequestBlock[] {
  switch (part.type) {
    case 'text':
      return withCachePoint({ text: part.text }, part.cacheControl);
    case 'image': {
      const source = 'url' in part ? urlSource(part.url, 'image') : { mediaType: part.mediaType, source: { bytes: part.data } };
      return withCachePoint({ image: { format: formatOf(source.mediaType, 'image'), source: source.source } }, part.cacheControl);
    }
    case 'file': {
      const name = documentName(part.filename);
      if ('url' in part) {
        const source = urlSource(part.url, 'file');
        return withCachePoint({ document: { format: formatOf(source.mediaType ?? part.mediaType, 'file'), name, source: source.source } }, part.cacheControl);
      }
      // Plain text goes as text, as Bedrock takes it; other documents as their bytes.
      const source = part.mediaType === 'text/plain' ? { text: Buffer.from(part.data, 'base64').toString('utf8') } : { bytes: part.data };
      return withCachePoint({ document: { format: formatOf(part.mediaType, 'file'), name, source } }, part.cacheControl);
    }
  }
}

function convertAssistantPart(part: AssistantPart): ConverseRequestBlock[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : withCachePoint({ text: part.text }, part.cacheControl);
    case 'reasoning':
      if (part.redactedData !== undefined) return [{ reasoningContent: { redactedContent: part.redactedData } }];
      // Reasoning without a signature came from another provider: Bedrock's Anthropic models would reject it.
      return part.signature === undefined ? [] : [{ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } }];
    case 'tool-call':
      return [{ toolUse: { toolUseId: part.id, name: part.name, input: parseToolArguments(part.arguments) } }];
  }
}

function withCachePoint(block: ConverseRequestBlock, cacheControl: CacheControl | undefined): ConverseRequestBlock[] {
  return cacheControl === undefined ? [block] : [block, CACHE_POINT];
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** Converse takes media as bytes or from S3, never from a web address. */
function urlSource(url: string, kind: 'image' | 'file'): { mediaType: string | undefined; source: { bytes: string } | { s3Location: { uri: string } } } {
  const match = DATA_URL.exec(url);
  if (match?.[1] !== undefined && match[2] !== undefined) return { mediaType: match[1], source: { bytes: match[2] } };
  if (url.startsWith('s3://')) return { mediaType: undefined, source: { s3Location: { uri: url } } };
  throw new JunctionError('invalid_request', `Bedrock takes ${kind === 'image' ? 'images' : 'files'} as inline base64 data or s3:// locations, not by web URL`, { param: 'messages' });
}

const FORMAT_BY_MEDIA_TYPE: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

function formatOf(mediaType: string | undefined, kind: 'image' | 'file'): string {
  const format = mediaType === undefined ? undefined : FORMAT_BY_MEDIA_TYPE[mediaType.toLowerCase()];
  if (format !== undefined) return format;
  // An s3:// image names no media type; PNG is what Bedrock assumes least wrongly, and it answers a 400 if not.
  if (mediaType === undefined) return kind === 'image' ? 'png' : 'pdf';
  throw new JunctionError('invalid_request', `Bedrock does not accept ${kind === 'image' ? 'images' : 'documents'} of type ${mediaType}`, { param: 'messages' });
}

/** Bedrock allows letters, digits, spaces, hyphens, parentheses and brackets in a document's name. */
function documentName(filename: string | undefined): string {
  const cleaned = (filename ?? 'document')
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9 ()[\]-]+/g, '-')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return cleaned === '' ? 'document' : cleaned.slice(0, 200);
}
