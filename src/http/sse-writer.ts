import type { FastifyReply } from 'fastify';
import { RawStreamWriter } from './raw-stream-writer.ts';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** Server-sent events: `event:` (when named) and `data: <json>` frames. */
export class SseWriter extends RawStreamWriter {
  /** `headers`: this call's own (rate limits); the SSE ones win over them. */
  constructor(reply: FastifyReply, headers?: Record<string, string>) {
    super(reply, SSE_HEADERS, 200, headers);
  }

  /** Sends one frame; a promise comes back only while the client is not keeping up (see write). */
  send(data: unknown, event?: string): Promise<void> | undefined {
    return this.sendJson(JSON.stringify(data), event);
  }

  /** Sends one frame whose data is already serialized JSON. */
  sendJson(json: string, event?: string): Promise<void> | undefined {
    return this.write(`${event ? `event: ${event}\n` : ''}data: ${json}\n\n`);
  }
}
