/**
 * A deterministic fake of Amazon Bedrock's runtime (Converse and ConverseStream) on
 * 127.0.0.1 (random port), checking what Bedrock checks and answering as Bedrock does.
 *
 * Authentication, as AWS does it: `Authorization: AWS4-HMAC-SHA256 Credential=…,
 * SignedHeaders=…, Signature=…` is verified by recomputing Signature Version 4 here, by hand
 * from the specification (canonical request over the raw path, signed headers and body
 * hash; the `bedrock` scope of the fake's region; x-amz-security-token when the credentials
 * have one); a wrong signature is Bedrock's 403 InvalidSignatureException, an unknown key
 * its 403 UnrecognizedClientException. `Authorization: Bearer <key>` passes for the
 * fake's Bedrock API keys only.
 *
 * Streams are `application/vnd.amazon.eventstream`: binary frames (prelude, typed headers,
 * JSON payload with Bedrock's `p` padding, CRC32s) written here from the format's
 * specification, each frame split over two writes.
 *
 * Behaviour is picked by substrings of the model id (they combine):
 * - default / `echo`: answers with the last user text (or "ok");
 * - `tool`: without a toolResult in the last user turn, calls the first tool (string
 *   properties get the last user text, numbers 42, booleans true), id `tooluse_fake_<turns>`;
 *   with one, answers `The tool said: <result>`;
 * - `thinking`: a reasoning block ("Let me think about it.") with signature `sig_fake` first;
 * - `cached`, or a request with a cachePoint: half the input tokens (rounded down) as cacheReadInputTokens;
 * - `fail-429` / `fail-500`: Bedrock's ThrottlingException (no Retry-After, as Bedrock) or
 *   InternalServerException; `fail-500-2` fails only the first 2 attempts;
 * - `stream-throttle`: streams messageStart and a text delta, then a throttlingException frame.
 * Usage: input tokens = ceil(characters of request text / 4), output tokens = words emitted.
 *
 * CountTokens (`POST /model/{modelId}/count-tokens`) takes `{"input": {"converse": {…}}}` with
 * only messages, system, toolConfig and additionalModelRequestFields (anything else is a
 * ValidationException) and answers `{"inputTokens": n}`, n as above; like Bedrock it counts for
 * bare Anthropic model ids only: an inference profile (`us.…`) or another family is a
 * ValidationException "The provided model doesn't support counting tokens."
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

export type FakeBedrockOptions = {
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  apiKeys?: string[];
};

export type BedrockRequest = {
  path: string;
  modelId: string;
  operation: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** How the caller authenticated: `sigv4` (verified) or `bearer`. */
  auth: 'sigv4' | 'bearer';
};

export type FakeBedrock = {
  /** The runtime's root, like `https://bedrock-runtime.us-east-1.amazonaws.com`. */
  url: string;
  region: string;
  /** Requests that passed authentication. */
  requests: BedrockRequest[];
  /** Requests refused for their signature or key. */
  refused: Array<{ path: string; reason: string }>;
  attempts(modelId: string): number;
  close(): Promise<void>;
};

export const FAKE_BEDROCK_CREDENTIALS = { accessKeyId: 'AKIAFAKEBEDROCK00001', secretAccessKey: 'fake/secret+Key0123456789abcdefghijklmno', sessionToken: 'FwoGZXIvYXdzEFAKESESSIONTOKEN' };

type Json = Record<string, unknown>;
type Plan = { reasoning?: string; text?: string; tool?: { toolUseId: string; name: string; input: Json } };

export async function startFakeBedrockUpstream(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  const region = options.region ?? 'us-east-1';
  const credentials = options.credentials ?? FAKE_BEDROCK_CREDENTIALS;
  const apiKeys = new Set(options.apiKeys ?? []);
  const requests: BedrockRequest[] = [];
  const refused: FakeBedrock['refused'] = [];
  const attemptCounts = new Map<string, number>();

  const server = createServer((request, response) => {
    void readRaw(request).then((raw) => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const path = request.url ?? '/';
      const denied = authenticate(request.method ?? 'GET', path, headers, raw, region, credentials, apiKeys);
      if (denied !== undefined) {
        refused.push({ path, reason: denied.type });
        return sendError(response, 403, denied.type, denied.message);
      }
      const match = /^\/model\/([^/]+)\/(converse|converse-stream|count-tokens)$/.exec(path.split('?')[0] ?? '');
      if (!match?.[1] || !match[2]) return sendError(response, 404, 'UnknownOperationException', `no operation at ${path}`);
      const modelId = decodeURIComponent(match[1]);
      let body: Json;
      try {
        const parsed = JSON.parse(raw.toString('utf8')) as unknown;
        if (!isRecord(parsed)) throw new Error('not an object');
        body = parsed;
      } catch {
        return sendError(response, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
      }
      requests.push({ path, modelId, operation: match[2], headers, body, auth: headers.authorization?.startsWith('Bearer ') ? 'bearer' : 'sigv4' });
      if (match[2] === 'count-tokens') return countTokens(response, modelId, body);
      const attempt = (attemptCounts.get(modelId) ?? 0) + 1;
      attemptCounts.set(modelId, attempt);
      answer(response, modelId, match[2] === 'converse-stream', body, attempt);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    region,
    requests,
    refused,
    attempts: (modelId) => attemptCounts.get(modelId) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Undefined when the request may pass; else Bedrock's refusal. */
function authenticate(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  region: string,
  credentials: NonNullable<FakeBedrockOptions['credentials']>,
  apiKeys: ReadonlySet<string>,
): { type: string; message: string } | undefined {
  const authorization = headers.authorization ?? '';
  if (authorization.startsWith('Bearer ')) {
    return apiKeys.has(authorization.slice('Bearer '.length)) ? undefined : { type: 'AccessDeniedException', message: 'Authentication failed: Please make sure your API Key is valid.' };
  }
  const parsed = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!parsed) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, accessKeyId, day, scopeRegion, service, signedHeaderList, signature] = parsed as unknown as [string, string, string, string, string, string, string];
  if (accessKeyId !== credentials.accessKeyId) return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (credentials.sessionToken !== undefined && headers['x-amz-security-token'] !== credentials.sessionToken) {
    return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  if (service !== 'bedrock' || scopeRegion !== region) return { type: 'InvalidSignatureException', message: `Credential should be scoped to correct service and region ('bedrock', '${region}').` };
  const amzDate = headers['x-amz-date'] ?? '';
  const signedHeaders = signedHeaderList.split(';');
  if (!amzDate.startsWith(day) || !signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) {
    return { type: 'InvalidSignatureException', message: "'Host' and 'X-Amz-Date' must be signed, within the credential's day." };
  }
  const payloadHash = sha256Hex(body);
  if (headers['x-amz-content-sha256'] !== undefined && headers['x-amz-content-sha256'] !== payloadHash) {
    return { type: 'InvalidSignatureException', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  }
  const [rawPath = '/', rawQuery = ''] = path.split('?');
  const canonicalRequest = [
    method,
    rawPath
      .split('/')
      .map((segment) => awsEncode(segment))
      .join('/'),
    canonicalQuery(rawQuery),
    ...signedHeaders.map((name) => `${name}:${(headers[name] ?? '').trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaderList,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/bedrock/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(Buffer.from(canonicalRequest, 'utf8'))].join('\n');
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, day);
  for (const part of [region, 'bedrock', 'aws4_request']) key = hmac(key, part);
  const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  if (expected !== signature) {
    return {
      type: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    };
  }
  return undefined;
}

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters, upper-case hex. */
function awsEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

function canonicalQuery(query: string): string {
  if (query === '') return '';
  return query
    .split('&')
    .map((pair) => pair.split('=').map((part) => awsEncode(decodeURIComponent(part.replace(/\+/g, ' ')))))
    .map(([name = '', value = '']) => [name, value] as const)
    .sort(([a, x], [b, y]) => byCodeUnits(a, b) || byCodeUnits(x, y))
    .map(([name = '', value = '']) => `${name}=${value}`)
    .join('&');
}

/** SigV4 sorts by code point (its encoded names are ASCII), not by locale. */
function byCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

const sha256Hex = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

function answer(response: ServerResponse, modelId: string, stream: boolean, body: Json, attempt: number): void {
  const validation = validate(body);
  if (validation !== undefined) return sendError(response, 400, 'ValidationException', validation);
  const failure = /fail-(429|500)(?:-(\d+))?/.exec(modelId);
  if (failure !== null && (failure[2] === undefined || attempt <= Number(failure[2]))) {
    return failure[1] === '429'
      ? sendError(response, 429, 'ThrottlingException', 'Too many requests, please wait before trying again.')
      : sendError(response, 500, 'InternalServerException', 'The server encountered an internal error while processing the request.');
  }
  const plan = planAnswer(modelId, body);
  const words = (text: string | undefined) => (text === undefined ? [] : text.split(/\s+/).filter((word) => word !== ''));
  const outputTokens = words(plan.reasoning).length + words(plan.text).length + (plan.tool === undefined ? 0 : words(JSON.stringify(plan.tool.input)).length);
  const inputTotal = Math.ceil(requestText(body).length / 4);
  const cacheRead = modelId.includes('cached') || JSON.stringify(body).includes('"cachePoint"') ? Math.floor(inputTotal / 2) : 0;
  const usage = {
    inputTokens: inputTotal - cacheRead,
    outputTokens,
    totalTokens: inputTotal + outputTokens,
    ...(cacheRead > 0 ? { cacheReadInputTokens: cacheRead, cacheWriteInputTokens: 0 } : {}),
  };
  const stopReason = plan.tool === undefined ? 'end_turn' : 'tool_use';
  const requestId = randomUUID();

  if (!stream) {
    const content: Json[] = [];
    if (plan.reasoning !== undefined) content.push({ reasoningContent: { reasoningText: { text: plan.reasoning, signature: 'sig_fake' } } });
    if (plan.text !== undefined) content.push({ text: plan.text });
    if (plan.tool !== undefined) content.push({ toolUse: plan.tool });
    response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': requestId });
    return void response.end(JSON.stringify({ output: { message: { role: 'assistant', content } }, stopReason, usage, metrics: { latencyMs: 12 } }));
  }

  response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': requestId });
  const send = (eventType: string, payload: Json) => writeSplit(response, eventFrame(eventType, payload));
  send('messageStart', { role: 'assistant' });
  let index = 0;
  if (modelId.includes('stream-throttle')) {
    send('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'partial' } });
    writeSplit(
      response,
      frame({ ':message-type': 'exception', ':exception-type': 'throttlingException', ':content-type': 'application/json' }, { message: 'Too many requests, please wait before trying again.' }),
    );
    return void response.end();
  }
  if (plan.reasoning !== undefined) {
    for (const piece of chunks(plan.reasoning)) send('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { text: piece } } });
    send('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { signature: 'sig_fake' } } });
    send('contentBlockStop', { contentBlockIndex: index++ });
  }
  if (plan.text !== undefined) {
    for (const piece of chunks(plan.text)) send('contentBlockDelta', { contentBlockIndex: index, delta: { text: piece } });
    send('contentBlockStop', { contentBlockIndex: index++ });
  }
  if (plan.tool !== undefined) {
    send('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: plan.tool.toolUseId, name: plan.tool.name } } });
    const json = JSON.stringify(plan.tool.input);
    const middle = Math.floor(json.length / 2);
    for (const piece of [json.slice(0, middle), json.slice(middle)]) send('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: piece } } });
    send('contentBlockStop', { contentBlockIndex: index++ });
  }
  send('messageStop', { stopReason });
  send('metadata', { usage, metrics: { latencyMs: 12 } });
  response.end();
}

/** What Bedrock refuses before the model runs: a malformed conversation or tool history without tools. */
function validate(body: Json): string | undefined {
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return 'The model returned the following errors: messages: field required';
  let previous: unknown;
  let toolBlocks = false;
  for (const message of messages) {
    if (!isRecord(message) || (message['role'] !== 'user' && message['role'] !== 'assistant') || !Array.isArray(message['content']))
      return 'A conversation must alternate between user and assistant roles.';
    if (message['role'] === previous) return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    previous = message['role'];
    for (const block of message['content']) {
      if (!isRecord(block) || Object.keys(block).length !== 1) return 'The content block must have exactly one member.';
      if ('toolUse' in block || 'toolResult' in block) toolBlocks = true;
    }
  }
  if (messages[0]?.['role'] !== 'user') return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  const toolConfig = body['toolConfig'];
  if (toolBlocks && !isRecord(toolConfig)) return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  if (isRecord(toolConfig)) {
    for (const tool of asArray(toolConfig['tools'])) {
      if (!isRecord(tool)) return 'tools: invalid';
      if ('cachePoint' in tool) continue;
      const spec = tool['toolSpec'];
      if (!isRecord(spec) || typeof spec['name'] !== 'string' || !isRecord(spec['inputSchema']) || !isRecord(spec['inputSchema']['json'])) return 'toolSpec must have a name and an inputSchema.json';
    }
  }
  return undefined;
}

function planAnswer(modelId: string, body: Json): Plan {
  const messages = asArray(body['messages']).filter(isRecord);
  const lastUser = [...messages].reverse().find((message) => message['role'] === 'user');
  const blocks = asArray(lastUser?.['content']).filter(isRecord);
  const toolResult = blocks.find((block) => isRecord(block['toolResult']))?.['toolResult'] as Json | undefined;
  const lastText = [...blocks].reverse().find((block) => typeof block['text'] === 'string')?.['text'];
  const text = typeof lastText === 'string' ? lastText : 'ok';
  const plan: Plan = {};
  if (modelId.includes('thinking')) plan.reasoning = 'Let me think about it.';
  const firstTool = asArray(isRecord(body['toolConfig']) ? body['toolConfig']['tools'] : undefined).find((tool) => isRecord(tool) && isRecord(tool['toolSpec']));
  const spec = isRecord(firstTool) && isRecord(firstTool['toolSpec']) ? firstTool['toolSpec'] : undefined;
  if (modelId.includes('tool') && spec !== undefined && toolResult === undefined) {
    const turns = messages.filter((message) => message['role'] === 'assistant').length;
    const schema = isRecord(spec['inputSchema']) ? spec['inputSchema']['json'] : undefined;
    plan.tool = { toolUseId: `tooluse_fake_${turns}`, name: String(spec['name']), input: argumentsFor(schema, text) };
  } else {
    const resultText = asArray(toolResult?.['content'])
      .filter(isRecord)
      .map((part) => (typeof part['text'] === 'string' ? part['text'] : JSON.stringify(part['json'])))
      .join('');
    plan.text = toolResult === undefined ? text : `The tool said: ${resultText}`;
  }
  return plan;
}

function argumentsFor(schema: unknown, text: string): Json {
  const properties = isRecord(schema) && isRecord(schema['properties']) ? schema['properties'] : {};
  const input: Json = {};
  for (const [name, property] of Object.entries(properties)) {
    const type = isRecord(property) ? property['type'] : undefined;
    if (type === 'string') input[name] = text;
    else if (type === 'number' || type === 'integer') input[name] = 42;
    else if (type === 'boolean') input[name] = true;
  }
  return input;
}

const CONVERSE_TOKENS_FIELDS = new Set(['messages', 'system', 'toolConfig', 'additionalModelRequestFields']);

function countTokens(response: ServerResponse, modelId: string, body: Json): void {
  const input = body['input'];
  const converse = isRecord(input) ? input['converse'] : undefined;
  if (!isRecord(converse) || Object.keys(body).length !== 1 || Object.keys(input as Json).length !== 1) {
    return sendError(response, 400, 'ValidationException', 'input must hold exactly one of invokeModel or converse');
  }
  const unknown = Object.keys(converse).find((field) => !CONVERSE_TOKENS_FIELDS.has(field));
  if (unknown !== undefined) return sendError(response, 400, 'ValidationException', `Unknown field ${unknown} in ConverseTokensRequest`);
  if (!modelId.startsWith('anthropic.')) return sendError(response, 400, 'ValidationException', "The provided model doesn't support counting tokens.");
  response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() });
  response.end(JSON.stringify({ inputTokens: Math.ceil(requestText(converse).length / 4) }));
}

function requestText(body: Json): string {
  let text = asArray(body['system'])
    .filter(isRecord)
    .map((block) => (typeof block['text'] === 'string' ? block['text'] : ''))
    .join('');
  for (const message of asArray(body['messages']).filter(isRecord)) {
    for (const block of asArray(message['content']).filter(isRecord)) {
      if (typeof block['text'] === 'string') text += block['text'];
      else if (isRecord(block['toolUse'])) text += JSON.stringify(block['toolUse']['input']);
      else if (isRecord(block['toolResult'])) text += JSON.stringify(block['toolResult']['content']);
    }
  }
  return text;
}

/** Bedrock pads each event's payload with a `p` field of varying length, so sizes do not leak content. */
const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function eventFrame(eventType: string, payload: Json): Buffer {
  return frame({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, { ...payload, p: PADDING.slice(0, 5 + (eventType.length % 20)) });
}

/** One event-stream message: total length, headers length, prelude CRC, string headers (type 7), payload, message CRC. */
function frame(headers: Record<string, string>, payload: Json): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const nameBytes = Buffer.from(name, 'utf8');
      const valueBytes = Buffer.from(value, 'utf8');
      const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
      header.writeUInt8(nameBytes.length, 0);
      nameBytes.copy(header, 1);
      header.writeUInt8(7, 1 + nameBytes.length);
      header.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
      valueBytes.copy(header, 4 + nameBytes.length);
      return header;
    }),
  );
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const total = 12 + headerBytes.length + body.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headerBytes.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headerBytes.copy(message, 12);
  body.copy(message, 12 + headerBytes.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}

/** A frame over two writes, cut inside its prelude or headers, as a network read may cut it. */
function writeSplit(response: ServerResponse, bytes: Buffer): void {
  const cut = 7 + (bytes.length % 13);
  response.write(bytes.subarray(0, cut));
  response.write(bytes.subarray(cut));
}

function sendError(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-requestid': randomUUID(),
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  });
  response.end(JSON.stringify({ message }));
}

function chunks(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

async function readRaw(request: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
