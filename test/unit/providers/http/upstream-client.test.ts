import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../../src/providers/adapter.ts';
import { FormData, parseRetryAfter, postJson, postMultipart, postStream } from '../../../../src/providers/http/upstream-client.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';

type Seen = { url: string; headers: IncomingMessage['headers']; body: string };
const seen: Seen[] = [];
let baseUrl = '';
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    seen.push({ url: request.url ?? '', headers: request.headers, body });
    const route = (request.url ?? '').split('?')[0];
    if (route === '/v9/ok') return void response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_1' }).end('{"ok":true}');
    if (route === '/v9/not-json') return void response.writeHead(200).end('<html>hi</html>');
    if (route === '/v9/cut-json' || route === '/v9/cut-error') {
      response.writeHead(route === '/v9/cut-json' ? 200 : 429, { 'content-type': 'application/json', 'content-length': '100', 'retry-after': '7' });
      response.write('{"id":');
      return void setTimeout(() => response.socket?.destroy(), 20);
    }
    if (route === '/v9/html-error') return void response.writeHead(503).end('<html>Service Unavailable</html>');
    if (route === '/v9/echo-key') {
      return void response.writeHead(401, { 'retry-after': 'Wed, 21 Oct 2099 07:28:00 GMT' }).end(JSON.stringify({ error: { message: `bad key ${String(request.headers['x-api-key'])}` } }));
    }
    if (route === '/v9/stream') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
      return void setTimeout(() => response.end('data: 2\n\n'), 20);
    }
    response.writeHead(404).end();
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v9/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const config = (extra: Partial<ProviderConfig> = {}): ProviderConfig => ({ id: 'test', kind: 'anthropic', baseUrl, ...extra });
const signal = () => new AbortController().signal;

describe('upstream client', () => {
  it('joins base URL, path and both query sets; config headers win over call headers', async () => {
    const response = await postJson(config({ query: { 'api-version': '2024-10-21' }, headers: { 'x-api-key': 'from-config' } }), {
      path: '/ok',
      signal: signal(),
      query: { alt: 'sse' },
      headers: { 'x-api-key': 'from-call', 'x-other': '1' },
      body: { hello: 'world' },
    });
    expect(response).toMatchObject({ status: 200, body: { ok: true }, headers: { 'x-request-id': 'req_1' } });
    const request = seen.at(-1);
    expect(request?.url).toBe('/v9/ok?api-version=2024-10-21&alt=sse');
    expect(request?.headers['x-api-key']).toBe('from-config');
    expect(request?.headers['x-other']).toBe('1');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({ hello: 'world' });
  });

  it('redacts the key from upstream messages and reads an HTTP-date Retry-After', async () => {
    const secret = 'sk-ant-secret-value';
    const error = await postJson(config({ apiKey: secret }), { path: '/echo-key', signal: signal(), headers: { 'x-api-key': secret }, body: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    const upstreamError = error as UpstreamError;
    expect(upstreamError.upstreamMessage).toBe('bad key [redacted]');
    expect(upstreamError.message).not.toContain(secret);
    expect(upstreamError.status).toBe(401);
    expect(upstreamError.retryAfterSeconds).toBeGreaterThan(1_000_000);
  });

  it('uses a non-JSON error body as the message and keeps its status', async () => {
    await expect(postJson(config(), { path: '/html-error', signal: signal(), body: {} })).rejects.toMatchObject({
      status: 503,
      retryable: true,
      upstreamMessage: '<html>Service Unavailable</html>',
    });
  });

  it('turns a JSON answer cut off after its headers into a retryable broken stream, and a cut error body into its status', async () => {
    await expect(postJson(config(), { path: '/cut-json', signal: signal(), body: {} })).rejects.toMatchObject({
      status: 0,
      retryable: true,
      upstreamMessage: 'upstream connection closed unexpectedly',
    });
    await expect(postJson(config(), { path: '/cut-error', signal: signal(), body: {} })).rejects.toMatchObject({ status: 429, retryable: true, upstreamMessage: 'HTTP 429', retryAfterSeconds: 7 });
  });

  it('rejects a 200 that is not JSON as a 502', async () => {
    await expect(postJson(config(), { path: '/not-json', signal: signal(), body: {} })).rejects.toMatchObject({ status: 502 });
  });

  it('streams the body as it arrives', async () => {
    const response = await postStream(config(), { path: '/stream', signal: signal(), body: {} });
    let text = '';
    for await (const chunk of response.body) text += Buffer.from(chunk).toString();
    expect(text).toBe('data: 1\n\ndata: 2\n\n');
    expect(seen.at(-1)?.headers['accept']).toBe('text/event-stream');
  });

  it('sends multipart forms', async () => {
    const form = new FormData();
    form.set('model', 'whisper-1');
    form.set('file', new Blob([Buffer.from('abc')], { type: 'audio/wav' }), 'a.wav');
    const response = await postMultipart(config(), { path: '/ok', signal: signal(), form });
    expect(response.body.toString()).toBe('{"ok":true}');
    expect(seen.at(-1)?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen.at(-1)?.body).toContain('filename="a.wav"');
  });

  it('rejects with the abort reason when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(postJson(config(), { path: '/ok', signal: controller.signal, body: {} })).rejects.toThrow('gone');
  });

  it("names the network error's code but not the upstream's address in the caller's message", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await postJson(config({ baseUrl: `http://127.0.0.1:${port}/internal` }), { path: '/ok', signal: signal(), body: {} }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 0, retryable: true, upstreamMessage: 'connection failed (ECONNREFUSED)', network: 'unreachable' });
    expect((error as UpstreamError).message).toContain(`127.0.0.1:${port}`);
  });

  it('parses Retry-After forms', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '1500', 'retry-after': '9' })).toBe(1.5);
    expect(parseRetryAfter({ 'retry-after': '20' })).toBe(20);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
  });
});
