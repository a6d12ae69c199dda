import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientDisconnect } from '../../../../src/core/cancel-signal.ts';
import { BodyBrokeError, dispatchUpstream, dispatchUpstreamText } from '../../../../src/providers/http/upstream-dispatch.ts';

type Route = (request: IncomingMessage, response: ServerResponse) => void;
const routes = new Map<string, Route>();
let server: Server;
let origin: string;
const agent = new Agent({ keepAliveTimeout: 10_000 });

beforeAll(async () => {
  server = createServer((request, response) => routes.get(request.url ?? '')?.(request, response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  server.close();
});

const get = (path: string, signal = new AbortController().signal) => dispatchUpstream(agent, { origin, path, method: 'GET' }, signal);

describe('dispatchUpstream', () => {
  it('joins a body sent in several writes, a character split between two of them included', async () => {
    routes.set('/split', (_request, response) => {
      const bytes = Buffer.from('{"text":"héllo"}');
      // 'é' is two bytes: the first write ends in the middle of it.
      response.write(bytes.subarray(0, 11));
      setTimeout(() => response.end(bytes.subarray(11)), 20);
    });
    const response = await get('/split');
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(await response.body.text())).toEqual({ text: 'héllo' });
  });

  it('rejects with the abort reason when the signal aborts while it waits for the headers, and closes the connection', async () => {
    let closed: Promise<unknown> = Promise.resolve();
    routes.set('/silent', (request) => {
      closed = once(request.socket, 'close');
    });
    const controller = new AbortController();
    const pending = get('/silent', controller.signal);
    await new Promise((done) => setTimeout(done, 50));
    const reason = new Error('caller left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await closed;
  });

  it('holds back a large body for a slow reader, then delivers every byte in order', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const chunks = 2048; // 32 MiB: far more than the sockets' buffers hold
    let sent = 0;
    routes.set('/large', (_request, response) => {
      const writeMore = () => {
        while (sent < chunks) {
          sent += 1;
          if (!response.write(chunk)) {
            response.once('drain', writeMore);
            return;
          }
        }
        response.end();
      };
      writeMore();
    });
    const response = await get('/large');
    // Nothing is read for a while: an unbounded queue would take all 32 MiB meanwhile.
    await new Promise((done) => setTimeout(done, 300));
    expect(sent).toBeLessThan(chunks);
    let received = 0;
    for await (const piece of response.body) {
      expect(Buffer.from(piece).every((byte) => byte === 0x78)).toBe(true);
      received += piece.length;
    }
    expect(received).toBe(chunk.length * chunks);
  });

  it('aborts the request when the reader leaves before the end (the upstream sees its connection close)', async () => {
    let closed: Promise<unknown> = Promise.resolve();
    routes.set('/endless', (_request, response) => {
      closed = once(response, 'close');
      response.write('first');
      // Never ends on its own.
    });
    const response = await get('/endless');
    for await (const piece of response.body) {
      expect(Buffer.from(piece).toString()).toBe('first');
      break;
    }
    await closed;
  });

  it('hands an error after the headers to the reader, not to the caller of dispatch', async () => {
    routes.set('/cut', (_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const response = await get('/cut');
    await expect(response.body.text()).rejects.toThrow();
  });
});

describe('dispatchUpstreamText', () => {
  const getText = (path: string, signal = new ClientDisconnect()) => dispatchUpstreamText(agent, { origin, path, method: 'GET' }, signal);

  it('resolves once, at the end, with the whole body (a character split between writes included) and the headers', async () => {
    routes.set('/whole', (_request, response) => {
      const bytes = Buffer.from('{"text":"héllo"}');
      response.setHeader('x-upstream', 'yes');
      response.write(bytes.subarray(0, 11));
      setTimeout(() => response.end(bytes.subarray(11)), 20);
    });
    const response = await getText('/whole');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-upstream']).toBe('yes');
    expect(JSON.parse(response.text)).toEqual({ text: 'héllo' });
  });

  it('rejects with the abort reason when the caller leaves before or during the body, closing the connection', async () => {
    for (const [path, route] of [
      ['/text-silent', () => undefined],
      ['/text-endless', (_request: IncomingMessage, response: ServerResponse) => response.write('first')],
    ] as const) {
      let closed: Promise<unknown> = Promise.resolve();
      routes.set(path, (request, response) => {
        closed = once(request.socket, 'close');
        route(request, response);
      });
      const disconnect = new ClientDisconnect();
      const pending = getText(path, disconnect);
      await new Promise((done) => setTimeout(done, 50));
      const reason = new Error('caller left');
      disconnect.abort(reason);
      await expect(pending).rejects.toBe(reason);
      await closed;
    }
  });

  it('tells a body cut off after the headers (BodyBrokeError, with the status) from a failure before them', async () => {
    routes.set('/text-cut', (_request, response) => {
      response.writeHead(503, { 'content-length': '100' });
      response.write('partial');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const cut = await getText('/text-cut').catch((error: unknown) => error);
    expect(cut).toBeInstanceOf(BodyBrokeError);
    expect((cut as BodyBrokeError).statusCode).toBe(503);
    const refused = await dispatchUpstreamText(agent, { origin: 'http://127.0.0.1:9', path: '/', method: 'GET' }, new ClientDisconnect()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(refused).not.toBeInstanceOf(BodyBrokeError);
  });
});
