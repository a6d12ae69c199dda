import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a fake upstream records of every request it receives. */
export type RecordedRequest = { method: string; path: string; headers: Record<string, string>; body: unknown };

export type FakeUpstream = {
  /** Base URL including the API's version segment (`…/v1`, `…/v1beta`). */
  url: string;
  requests: RecordedRequest[];
  attempts(model: string): number;
  close(): Promise<void>;
};

export type FakeHandler = (request: IncomingMessage, response: ServerResponse, body: unknown, attemptCounts: Map<string, number>) => void;

/**
 * The scaffolding every fake provider shares: a node:http server on 127.0.0.1 and a
 * random port that records each request (JSON bodies parsed) before its handler runs.
 */
export async function startRecordingServer(basePath: string, handle: FakeHandler): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const attemptCounts = new Map<string, number>();
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers, body });
      handle(request, response, body, attemptCounts);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    attempts: (model) => attemptCounts.get(model) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}
