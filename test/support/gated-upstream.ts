/**
 * A pass-through on 127.0.0.1 in front of a fake upstream whose origin is known only later
 * (`target()` is read per request): while `hold()` is in force, requests are received and
 * left unanswered until its release, so a test can look at work that provably has not
 * finished. Every request passed on keeps its method, path, authorization and body.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type GatedUpstream = {
  /** Base URL with the same path as the target's (`http://127.0.0.1:PORT/v1`). */
  url: string;
  /** Requests received while held and not yet passed on. */
  readonly waiting: number;
  /** Holds every request from now until the returned function is called. */
  hold(): () => void;
  close(): Promise<void>;
};

export async function startGatedUpstream(target: () => string, path = '/v1'): Promise<GatedUpstream> {
  let gate: Promise<void> | undefined;
  let waiting = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (gate) {
      waiting += 1;
      await gate;
      waiting -= 1;
    }
    const headers: Record<string, string> = { 'content-type': request.headers['content-type'] ?? 'application/json' };
    if (request.headers.authorization) headers.authorization = request.headers.authorization;
    // A caller that leaves ends the request passed on too, as it would at the real provider.
    const left = new AbortController();
    response.on('close', () => left.abort());
    try {
      const answer = await fetch(`${target()}${(request.url ?? '/').slice(path.length)}`, {
        method: request.method ?? 'POST',
        headers,
        signal: left.signal,
        ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
      });
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      if (answer.body) for await (const chunk of answer.body) response.write(chunk);
      response.end();
    } catch {
      response.destroy();
    }
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    get waiting() {
      return waiting;
    },
    hold() {
      let release: () => void = () => undefined;
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
