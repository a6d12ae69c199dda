import type { FastifyReply } from 'fastify';
import { RawStreamWriter } from './raw-stream-writer.ts';

/** Server-sent events: `event:` (when named) and `data: <json>` frames. */
export class SseWriter extends RawStreamWriter {
  constructor(reply: FastifyReply, headers: Record<string, string> = {}) {
    super(reply, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
  }

  async send(data: unknown, event?: string): Promise<void> {
    await this.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }
}
