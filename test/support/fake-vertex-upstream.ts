/**
 * A fake Google Vertex AI on 127.0.0.1 (random port), with its OAuth token endpoint, in
 * front of the Gemini and Anthropic fakes (whose behaviour by model name it inherits).
 *
 * `startFakeVertex({ gemini, anthropic, project })` generates an RSA key pair with
 * node:crypto; `serviceAccountJson()` is a service-account key file of that pair whose
 * `token_uri` is this fake's `/token`. The token endpoint takes Google's JWT-bearer grant,
 * checks the RS256 signature against the pair's public key (and iss, aud, scope, expiry)
 * and answers an access token, counting the exchanges in `tokenRequests`; a wrong
 * signature gets Google's `invalid_grant`.
 *
 * Model calls (`/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`)
 * need `Authorization: Bearer <an issued, unrevoked token>` (else 401 UNAUTHENTICATED) and the
 * fake's project (else 403 PERMISSION_DENIED):
 * - publisher `google`: `:generateContent`, `:streamGenerateContent?alt=sse` → the Gemini fake;
 *   `:countTokens` with Vertex's body (`contents`, `systemInstruction`, `tools`,
 *   `generationConfig`; any other field is Google's 400 "Unknown name") → the Gemini fake's
 *   count, answered with `totalBillableCharacters` as Vertex adds it;
 * - publisher `anthropic`: `:rawPredict`, `:streamRawPredict` with `anthropic_version:
 *   "vertex-2023-10-16"` and no `model` in the body (else 400, as Vertex answers) → the
 *   Anthropic fake's `/v1/messages`, the model from the path; the model `count-tokens`
 *   (`count-tokens:rawPredict`) takes the version and the `model` in the body → the
 *   Anthropic fake's `/v1/messages/count_tokens`.
 * While `failure` is set, every model call gets that status with Google's error body.
 * Every model call is recorded in `hits`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import type { FakeUpstream } from './recording-server.ts';

export const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const STATUS_NAMES: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

export type VertexHit = { method: string; path: string; headers: Record<string, string>; body: unknown };

export type FakeVertex = {
  origin: string;
  project: string;
  clientEmail: string;
  /** Successful token exchanges so far. */
  tokenRequests: number;
  /** Token exchanges refused (a wrong signature, a wrong claim). */
  refusedTokenRequests: number;
  /** Access tokens issued, in order. */
  issuedTokens: string[];
  /** Makes every token issued so far refused with 401, as a revoked or rotated key's are. */
  revokeTokens(): void;
  hits: VertexHit[];
  failure: { status: number; headers?: Record<string, string> } | undefined;
  /** A key file of this fake's key pair; `privateKey` swaps in another key (one the fake does not know). */
  serviceAccountJson(options?: { privateKey?: string; projectId?: string }): string;
  close(): Promise<void>;
};

type Targets = { gemini: FakeUpstream; anthropic: FakeUpstream; project: string };

/** A fresh RSA key pair's private key in PKCS#8 PEM, as service-account key files carry it. */
export function generateServiceAccountKey(): { privateKey: string; publicKey: KeyObject } {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey: pair.publicKey };
}

export async function startFakeVertex(targets: Targets): Promise<FakeVertex> {
  const { privateKey, publicKey } = generateServiceAccountKey();
  const clientEmail = `junction-test@${targets.project}.iam.gserviceaccount.com`;
  const revoked = new Set<string>();
  const fake: FakeVertex = {
    origin: '',
    project: targets.project,
    clientEmail,
    tokenRequests: 0,
    refusedTokenRequests: 0,
    issuedTokens: [],
    revokeTokens: () => {
      for (const token of fake.issuedTokens) revoked.add(token);
    },
    hits: [],
    failure: undefined,
    serviceAccountJson: (options = {}) =>
      JSON.stringify({
        type: 'service_account',
        project_id: options.projectId ?? targets.project,
        private_key_id: 'fake-key-1',
        private_key: options.privateKey ?? privateKey,
        client_email: clientEmail,
        client_id: '100000000000000000001',
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: `${fake.origin}/token`,
      }),
    close: async () => undefined,
  };

  const server = createServer((request, response) => {
    void readText(request).then((text) => {
      if (request.method === 'POST' && request.url === '/token') return handleToken(fake, publicKey, text, response);
      return handleModelCall(fake, revoked, targets, request, text, response);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((closed) => {
      server.closeAllConnections();
      server.close(() => closed());
    });
  return fake;
}

function handleToken(fake: FakeVertex, publicKey: KeyObject, text: string, response: ServerResponse): void {
  const form = new URLSearchParams(text);
  const refusal = assertionRefusal(form, publicKey, fake.clientEmail);
  if (refusal !== undefined) {
    fake.refusedTokenRequests += 1;
    return sendJson(response, 400, { error: 'invalid_grant', error_description: refusal });
  }
  fake.tokenRequests += 1;
  const token = `ya29.fake-vertex-${fake.tokenRequests}`;
  fake.issuedTokens.push(token);
  sendJson(response, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
}

/** Why Google would refuse this JWT-bearer grant, or undefined when it is a good one. */
function assertionRefusal(form: URLSearchParams, publicKey: KeyObject, clientEmail: string): string | undefined {
  if (form.get('grant_type') !== JWT_BEARER_GRANT) return 'Invalid grant_type.';
  const [header, payload, signature] = (form.get('assertion') ?? '').split('.');
  if (header === undefined || payload === undefined || signature === undefined) return 'Invalid JWT.';
  const decoded = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  if (decoded(header)['alg'] !== 'RS256') return 'Invalid JWT algorithm.';
  if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))) return 'Invalid JWT Signature.';
  const claims = decoded(payload);
  if (claims['iss'] !== clientEmail) return 'Invalid issuer.';
  if (claims['aud'] !== GOOGLE_TOKEN_AUDIENCE) return 'Invalid audience.';
  if (
    !String(claims['scope'] ?? '')
      .split(' ')
      .includes(CLOUD_PLATFORM_SCOPE)
  )
    return 'Invalid scope.';
  const issuedAt = Number(claims['iat']);
  const expiresAt = Number(claims['exp']);
  if (!(expiresAt > issuedAt) || expiresAt - issuedAt > 3600) return 'Invalid JWT: expiration must be at most an hour after issue.';
  return undefined;
}

const MODEL_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)$/;

async function handleModelCall(fake: FakeVertex, revoked: ReadonlySet<string>, targets: Targets, request: IncomingMessage, text: string, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', fake.origin);
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  const body = parseJson(text);
  fake.hits.push({ method: request.method ?? '', path: `${url.pathname}${url.search}`, headers, body });
  const route = MODEL_PATH.exec(url.pathname);
  if (request.method !== 'POST' || route === null) return sendGoogleError(response, 404, `The requested URL ${url.pathname} was not found.`);
  const [, project, , publisher, encodedModel, method] = route;
  const token = /^Bearer (.+)$/.exec(headers['authorization'] ?? '')?.[1];
  if (token === undefined || !fake.issuedTokens.includes(token) || revoked.has(token)) {
    return sendGoogleError(response, 401, 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
  }
  if (project !== fake.project) return sendGoogleError(response, 403, `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}'.`);
  const failure = fake.failure;
  if (failure) return sendGoogleError(response, failure.status, `switched to ${failure.status}`, failure.headers);
  if (!isRecord(body)) return sendGoogleError(response, 400, 'Invalid JSON payload received.');
  const model = decodeURIComponent(encodedModel ?? '');

  if (publisher === 'google') {
    if (method === 'countTokens') return countGoogleTokens(response, targets, model, body);
    if (method !== 'generateContent' && method !== 'streamGenerateContent') return sendGoogleError(response, 404, `Unknown method ${method}.`);
    const query = method === 'streamGenerateContent' && url.searchParams.get('alt') === 'sse' ? '?alt=sse' : '';
    return forward(response, `${targets.gemini.url}/models/${encodeURIComponent(model)}:${method}${query}`, { 'x-goog-api-key': 'vertex-fake' }, body);
  }
  if (method !== 'rawPredict' && method !== 'streamRawPredict') return sendGoogleError(response, 404, `Unknown method ${method}.`);
  if (body['anthropic_version'] !== 'vertex-2023-10-16') return sendAnthropicError(response, 400, "anthropic_version: Input should be 'vertex-2023-10-16'");
  if (model === 'count-tokens') {
    if (method !== 'rawPredict') return sendGoogleError(response, 404, `Unknown method ${method}.`);
    if (typeof body['model'] !== 'string') return sendAnthropicError(response, 400, 'model: Field required');
    const { anthropic_version: _counted, ...counted } = body;
    return forward(response, `${targets.anthropic.url}/messages/count_tokens`, { 'x-api-key': 'vertex-fake', 'anthropic-version': '2023-06-01' }, counted);
  }
  if ('model' in body) return sendAnthropicError(response, 400, 'model: Extra inputs are not permitted');
  if ((method === 'streamRawPredict') !== (body['stream'] === true)) return sendAnthropicError(response, 400, `stream must be ${method === 'streamRawPredict'} for ${method}`);
  const { anthropic_version: _version, ...messages } = body;
  return forward(response, `${targets.anthropic.url}/messages`, { 'x-api-key': 'vertex-fake', 'anthropic-version': '2023-06-01' }, { model, ...messages });
}

const VERTEX_COUNT_FIELDS = new Set(['contents', 'systemInstruction', 'tools', 'generationConfig', 'instances', 'model']);

async function countGoogleTokens(response: ServerResponse, targets: Targets, model: string, body: Record<string, unknown>): Promise<void> {
  const unknown = Object.keys(body).find((field) => !VERTEX_COUNT_FIELDS.has(field));
  if (unknown !== undefined) return sendGoogleError(response, 400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
  if (!Array.isArray(body['contents'])) return sendGoogleError(response, 400, 'contents is required.');
  const answer = await fetch(`${targets.gemini.url}/models/${encodeURIComponent(model)}:countTokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'vertex-fake' },
    body: JSON.stringify({ generateContentRequest: { model: `models/${model}`, ...body } }),
  });
  const counted = (await answer.json()) as Record<string, unknown>;
  if (!answer.ok) return sendJson(response, answer.status, counted);
  sendJson(response, 200, { ...counted, totalBillableCharacters: Number(counted['totalTokens'] ?? 0) * 4 });
}

async function forward(response: ServerResponse, url: string, headers: Record<string, string>, body: unknown): Promise<void> {
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
  if (answer.body) for await (const chunk of answer.body) response.write(chunk);
  response.end();
}

function sendGoogleError(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(response, status, { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' } }, headers);
}

function sendAnthropicError(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { type: 'error', error: { type: 'invalid_request_error', message } });
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

async function readText(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
