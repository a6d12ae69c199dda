import type { FastifyReply } from 'fastify';

/**
 * `:streamGenerateContent` without `?alt=sse` answers one JSON array that grows as the
 * model writes: `[{…}` then `,\r\n{…}` per chunk, then `]` — the framing Google's own
 * API uses, so clients that parse the array incrementally see chunks as they come.
 */
export class JsonArrayWriter {
  readonly #reply: FastifyReply;
  #count = 0;

  constructor(reply: FastifyReply, headers: Record<string, string> = {}) {
    this.#reply = reply;
    reply.hijack();
    const inherited = Object.fromEntries(
      Object.entries(reply.getHeaders()).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
    );
    reply.raw.writeHead(200, { ...inherited, ...headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' });
  }

  get closed(): boolean {
    return this.#reply.raw.destroyed || this.#reply.raw.writableEnded;
  }

  async send(item: unknown): Promise<void> {
    const prefix = this.#count === 0 ? '[' : ',\r\n';
    this.#count += 1;
    await this.#write(prefix + JSON.stringify(item));
  }

  end(): void {
    if (this.closed) return;
    this.#reply.raw.end(this.#count === 0 ? '[]' : ']');
  }

  async #write(text: string): Promise<void> {
    if (this.closed) return;
    if (this.#reply.raw.write(text)) return;
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
