import type { FastifyReply } from 'fastify';
import { ClientDisconnect } from '../core/cancel-signal.ts';

/**
 * Fires when the client goes away before the response is complete, so the pipeline
 * aborts the upstream call instead of paying for output nobody will read. A
 * ClientDisconnect rather than an AbortSignal: see cancel-signal.ts for why.
 */
export function clientSignal(reply: FastifyReply): ClientDisconnect {
  const disconnect = new ClientDisconnect();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) disconnect.abort(new Error('client disconnected'));
  });
  return disconnect;
}
