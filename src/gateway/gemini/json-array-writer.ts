import type { FastifyReply } from 'fastify';
import { RawStreamWriter } from '../../http/raw-stream-writer.ts';

/**
 * `:streamGenerateContent` without `?alt=sse` answers one JSON array that grows as the
 * model writes: `[{…}` then `,\r\n{…}` per chunk, then `]` — the framing Google's own
 * API uses, so clients that parse the array incrementally see chunks as they come.
 */
const JSON_ARRAY_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' };

export class JsonArrayWriter extends RawStreamWriter {
  #count = 0;

  constructor(reply: FastifyReply, headers?: Record<string, string>) {
    super(reply, JSON_ARRAY_HEADERS, 200, headers);
  }

  async send(item: unknown): Promise<void> {
    const prefix = this.#count === 0 ? '[' : ',\r\n';
    this.#count += 1;
    await this.write(prefix + JSON.stringify(item));
  }

  override end(): void {
    super.end(this.#count === 0 ? '[]' : ']');
  }
}
