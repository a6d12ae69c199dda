import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkProvider } from '../../../src/doctor/provider-check.ts';

/** A server that lists models at Cohere's path (/v1/models) and Mistral's (/v1/models under its /v1 root) for one key. */
let server: Server;
let origin: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    const ok = request.url === '/v1/models' && request.headers.authorization === 'Bearer good';
    const status = request.url === '/v1/models' ? 401 : 404;
    response.writeHead(ok ? 200 : status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(ok ? { models: [] } : { message: 'no' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('doctor on the cohere and mistral providers', () => {
  it("lists Cohere's models at /v1/models under its origin, with the key as a bearer", async () => {
    expect(await checkProvider({ id: 'cohere', kind: 'cohere', baseUrl: origin, apiKey: 'good' })).toMatchObject({ ok: true });
    expect(seen.at(-1)).toBe('GET /v1/models');
    expect(await checkProvider({ id: 'cohere', kind: 'cohere', baseUrl: origin, apiKey: 'bad' })).toMatchObject({ ok: false, detail: `${origin} refused the key (401)` });
  });

  it("lists Mistral's under its /v1 root", async () => {
    expect(await checkProvider({ id: 'mistral', kind: 'mistral', baseUrl: `${origin}/v1`, apiKey: 'good' })).toMatchObject({ ok: true });
    expect(seen.at(-1)).toBe('GET /v1/models');
  });
});
