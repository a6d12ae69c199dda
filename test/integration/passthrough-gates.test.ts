import { createServer, type IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type PassthroughApp, startPassthroughApp } from '../support/passthrough-app.ts';
import { bearer, type TestApp } from '../support/test-app.ts';

/**
 * The pass-through's edges against a bare upstream that records what reached it and
 * answers like OpenAI's edge does (a Cloudflare cookie, the provider's organization).
 */
let app: TestApp;
let key: string;
const reached: Array<{ url: string; headers: IncomingMessage['headers']; body: string }> = [];
const upstream = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    reached.push({ url: request.url ?? '', headers: request.headers, body });
    response.writeHead(200, {
      'content-type': 'application/json',
      'set-cookie': '__cf_bm=provider-session; path=/; HttpOnly',
      'openai-organization': 'org-provider-account',
      'openai-project': 'proj_provider',
      'x-request-id': 'req_upstream',
    });
    response.end(JSON.stringify({ object: 'list', data: [] }));
  });
});

let passthrough: PassthroughApp | undefined;
beforeAll(async () => {
  passthrough = await startPassthroughApp(upstream);
  ({ app, key } = passthrough);
});
afterAll(async () => passthrough?.close());
beforeEach(() => {
  reached.length = 0;
});

describe('pass-through edges', () => {
  it("keeps the caller's credentials and cookies from the upstream, and the provider's from the caller", async () => {
    // A list is answered from Junction's own records (per account), so a creation goes upstream here.
    const response = await app.app.inject({
      method: 'POST',
      url: `/v1/assistants?key=${key}&limit=2`,
      headers: { ...bearer(key), cookie: 'session=caller', 'x-api-key': key, 'x-goog-api-key': key, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers['openai-organization']).toBeUndefined();
    expect(response.headers['openai-project']).toBeUndefined();
    expect(response.headers['x-request-id']).toBeDefined();
    const [forwarded] = reached;
    expect(forwarded?.url).toBe('/v1/assistants?limit=2');
    expect(forwarded?.headers.authorization).toBe('Bearer sk-provider');
    expect(forwarded?.headers.cookie).toBeUndefined();
    expect(forwarded?.headers['x-api-key']).toBeUndefined();
    expect(forwarded?.headers['x-goog-api-key']).toBeUndefined();
  });

  it('gates a JSON body whatever its Content-Type says', async () => {
    const body = JSON.stringify({ model: 'not-in-the-catalog', input: 'hi' });
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const response = await app.app.inject({ method: 'POST', url: '/v1/responses', headers: { ...bearer(key), 'content-type': contentType }, payload: body });
      expect(response.statusCode, contentType).toBe(404);
      expect(response.json()).toMatchObject({ error: { code: 'model_not_found' } });
    }
    expect(reached).toEqual([]);
  });

  it('refuses a compressed body, which the gates could not read', async () => {
    const response = await app.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: { ...bearer(key), 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify({ model: 'not-in-the-catalog', input: 'hi' })),
    });
    expect(response.statusCode).toBe(415);
    expect(reached).toEqual([]);
  });

  it('refuses priority processing, which costs more upstream than the catalog bills', async () => {
    const response = await app.app.inject({ method: 'POST', url: '/v1/responses', headers: bearer(key), payload: { model: 'test-echo', input: 'hi', service_tier: 'priority' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { param: 'service_tier' } });
    expect(reached).toEqual([]);
  });

  it('answers 413 to a JSON body declared larger than 50 MB before reading it', async () => {
    const response = await app.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: { ...bearer(key), 'content-type': 'application/json', 'content-length': String(51 * 1024 * 1024) },
      payload: '{}',
    });
    expect(response.statusCode).toBe(413);
    expect(reached).toEqual([]);
  });
});
