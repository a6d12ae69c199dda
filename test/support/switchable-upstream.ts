/**
 * A provider endpoint on 127.0.0.1 in front of a fake upstream: it passes each request on
 * (its path mapped, e.g. Azure's `/openai/deployments/<d>/chat/completions` to OpenAI's),
 * or, while `failure` is set, answers with that status and an OpenAI error body, so a
 * test can make one deployment fail and then recover. Every request is recorded.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SwitchableUpstream = {
  /** The origin, `http://127.0.0.1:PORT` (no path). */
  origin: string;
  hits: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: unknown }>;
  /** Answer every request with this status (and headers) while set; pass requests on while unset. */
  failure: { status: number; headers?: Record<string, string> } | undefined;
  close(): Promise<void>;
};

export async function startSwitchableUpstream(targetOrigin: string, mapPath: (pathAndQuery: string) => string = (path) => path): Promise<SwitchableUpstream> {
  const upstream: SwitchableUpstream = { origin: '', hits: [], failure: undefined, close: async () => undefined };
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    upstream.hits.push({ method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers, body: text ? (JSON.parse(text) as unknown) : undefined });
    const failure = upstream.failure;
    if (failure) {
      response.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
      response.end(JSON.stringify({ error: { message: `switched to ${failure.status}`, type: 'server_error', code: null, param: null } }));
      return;
    }
    const answer = await fetch(`${targetOrigin}${mapPath(request.url ?? '/')}`, {
      method: request.method ?? 'POST',
      headers: { 'content-type': 'application/json' },
      ...(text && { body: text }),
    });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    if (answer.body) for await (const chunk of answer.body) response.write(chunk);
    response.end();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  upstream.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = () =>
    new Promise<void>((closed) => {
      server.closeAllConnections();
      server.close(() => closed());
    });
  return upstream;
}
