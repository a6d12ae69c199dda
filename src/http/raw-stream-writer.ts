import type { FastifyReply } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';

/**
 * A streamed response written on the raw socket: headers once (with the request id
 * and any rate-limit headers already set on the reply), then text, respecting
 * backpressure. Writes made in one event-loop turn are corked into one syscall.
 * Writes after the client left are dropped quietly.
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
    await new Promise<void>((done) => {
      const finish = () => {
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
