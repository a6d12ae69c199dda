import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonArrayWriter } from '../../../src/gateway/gemini/json-array-writer.ts';
import { SseWriter } from '../../../src/http/sse-writer.ts';

/**
 * The headers a streamed answer goes out with: those already set on the reply (the
 * request id), the call's own (rate limits), and the writer's, which win over a call
 * header of the same name.
 */
describe('stream writer headers', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = Fastify();
    app.get('/sse', async (_request, reply) => {
      reply.header('x-request-id', 'req_1');
      const callHeaders = { 'x-ratelimit-remaining-requests': '9', 'content-type': 'text/plain' };
      const sse = new SseWriter(reply, callHeaders);
      await sse.send({ n: 1 });
      sse.end('data: [DONE]\n\n');
      // The call's object is read, not changed: it may be shared with other answers.
      expect(callHeaders).toEqual({ 'x-ratelimit-remaining-requests': '9', 'content-type': 'text/plain' });
      return reply;
    });
    app.get('/sse-plain', async (_request, reply) => {
      const sse = new SseWriter(reply);
      sse.end('data: [DONE]\n\n');
      return reply;
    });
    app.get('/array', async (_request, reply) => {
      const writer = new JsonArrayWriter(reply, { 'x-ratelimit-limit-requests': '10' });
      await writer.send({ a: 1 });
      await writer.send({ b: 2 });
      writer.end();
      return reply;
    });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
  });

  it('an SSE answer carries the reply headers, the call headers and its own, its own winning', async () => {
    const response = await app.inject({ method: 'GET', url: '/sse' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toBe('req_1');
    expect(response.headers['x-ratelimit-remaining-requests']).toBe('9');
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toBe('data: {"n":1}\n\ndata: [DONE]\n\n');
  });

  it('an SSE answer without call headers has only its own and the reply ones', async () => {
    const response = await app.inject({ method: 'GET', url: '/sse-plain' });
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['x-ratelimit-remaining-requests']).toBeUndefined();
  });

  it('a JSON array answer carries the call headers and its JSON content type', async () => {
    const response = await app.inject({ method: 'GET', url: '/array' });
    expect(response.headers['x-ratelimit-limit-requests']).toBe('10');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual([{ a: 1 }, { b: 2 }]);
  });
});
