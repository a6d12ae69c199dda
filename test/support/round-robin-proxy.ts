import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RoundRobinProxy = {
  url: string;
  /** Replaces the backend at `index` (a restarted host). */
  setBackend(index: number, url: string): void;
  /** Requests each backend got, by index. */
  routed: number[];
  close(): Promise<void>;
};

/**
 * A load balancer as a deployment has one: round robin over the backends whose `/readyz`
 * answered 200 at the last probe (every `probeMs`, 2 s to answer), each request piped
 * through whole; with none ready, the balancer's own 503.
 */
export async function startRoundRobinProxy(backends: string[], probeMs = 100): Promise<RoundRobinProxy> {
  const urls = [...backends];
  const ready = urls.map(() => false);
  const routed = urls.map(() => 0);
  let next = 0;
  const probe = async () => {
    await Promise.all(
      urls.map(async (url, index) => {
        ready[index] = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
          (response) => response.status === 200,
          () => false,
        );
      }),
    );
  };
  await probe();
  const timer = setInterval(() => void probe(), probeMs);
  const server = createServer((incoming, outgoing) => {
    const candidates = urls.map((_url, index) => index).filter((index) => ready[index]);
    if (candidates.length === 0) {
      outgoing.writeHead(503).end('no ready backend');
      return;
    }
    const index = candidates[next++ % candidates.length] as number;
    routed[index] = (routed[index] ?? 0) + 1;
    const target = new URL(incoming.url ?? '/', urls[index]);
    const forwarded = httpRequest(target, { method: incoming.method, headers: incoming.headers, agent: false }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setBackend(index, url) {
      urls[index] = url;
      ready[index] = false;
    },
    routed,
    async close() {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
