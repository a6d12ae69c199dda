import type { FastifyReply } from 'fastify';

/**
 * Server-sent events on the raw response: headers once (with the request id and any
 * rate-limit headers already set on the reply), then frames, respecting backpressure.
 * Writes after the client left are dropped quietly.
 */
export class SseWriter {
  readonly #reply: FastifyReply;
  #corked = false;

  constructor(reply: FastifyReply, headers: Record<string, string> = {}) {
    this.#reply = reply;
    reply.hijack();
    const inherited = Object.fromEntries(
      Object.entries(reply.getHeaders()).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
    );
    reply.raw.writeHead(200, {
      ...inherited,
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
  }

  get closed(): boolean {
    return this.#reply.raw.destroyed || this.#reply.raw.writableEnded;
  }

  /** `data: <json>` (with `event: <name>` first when given). */
  async send(data: unknown, event?: string): Promise<void> {
    await this.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }

  async write(text: string): Promise<void> {
    if (this.closed) return;
    // Frames produced from one upstream read go out in one syscall: cork on the first
    // write of this turn, uncork once the turn's microtasks (the other frames) ran.
    if (!this.#corked) {
      this.#corked = true;
      this.#reply.raw.cork();
      setImmediate(() => {
        this.#corked = false;
        this.#reply.raw.uncork();
      });
    }
    if (!this.#reply.raw.write(text)) {
      await new Promise<void>((done) => {
        const finish = () => {
          this.#reply.raw.off('drain', finish);
          this.#reply.raw.off('close', finish);
          done();
        };
        this.#reply.raw.once('drain', finish);
        this.#reply.raw.once('close', finish);
      });
    }
  }

  end(text?: string): void {
    if (this.closed) return;
    this.#reply.raw.end(text);
    if (this.#corked) this.#reply.raw.uncork();
  }
}
