import type { FastifyReply } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';

declare module 'fastify' {
  interface FastifyInstance {
    /** JUNCTION_STREAM_IDLE_TIMEOUT_MS: how long a stream may wait for a client that reads nothing. */
    streamIdleTimeoutMs: number;
  }
}

const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 60_000;

let open = 0;
/** Streamed responses open in this process right now (the metrics endpoint's gauge). */
export const openStreams = (): number => open;

/**
 * A streamed response written on the raw socket: headers once (with the request id
 * and any rate-limit headers already set on the reply), then text, respecting
 * backpressure. Writes made in one event-loop turn are corked into one syscall.
 * Writes after the client left are dropped quietly. A client that reads nothing for
 * the stream idle timeout is cut off: a slow reader cannot pin the stream's memory
 * (and its upstream call) for ever; the pipeline then bills it as client_closed.
 */
export class RawStreamWriter {
  readonly #reply: FastifyReply;
  #corked = false;

  constructor(reply: FastifyReply, headers: OutgoingHttpHeaders, status = 200) {
    this.#reply = reply;
    reply.hijack();
    const inherited = Object.fromEntries(
      Object.entries(reply.getHeaders()).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
    );
    reply.raw.writeHead(status, { ...inherited, ...headers });
    open += 1;
    reply.raw.once('close', () => {
      open -= 1;
    });
  }

  get closed(): boolean {
    return this.#reply.raw.destroyed || this.#reply.raw.writableEnded;
  }

  async write(text: string | Uint8Array): Promise<void> {
    if (this.closed) return;
    const raw = this.#reply.raw;
    // Frames produced from one upstream read go out together: cork on the first write
    // of this turn, uncork once the turn's other writes ran.
    if (!this.#corked) {
      this.#corked = true;
      raw.cork();
      setImmediate(() => {
        this.#corked = false;
        raw.uncork();
      });
    }
    if (raw.write(text)) return;
    const idleTimeoutMs = this.#reply.server.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    await new Promise<void>((done) => {
      const timer = setTimeout(() => raw.destroy(), idleTimeoutMs);
      const finish = () => {
        clearTimeout(timer);
        raw.off('drain', finish);
        raw.off('close', finish);
        done();
      };
      raw.once('drain', finish);
      raw.once('close', finish);
    });
  }

  /** Aborts the response (the body broke off: the client must not see a clean end). */
  destroy(): void {
    this.#reply.raw.destroy();
  }

  end(text?: string): void {
    if (this.closed) return;
    this.#reply.raw.end(text);
    if (this.#corked) this.#reply.raw.uncork();
  }
}
