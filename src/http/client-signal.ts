import type { FastifyReply } from 'fastify';

/**
 * An AbortSignal that fires when the client goes away before the response is
 * complete, so the pipeline aborts the upstream call instead of paying for output
 * nobody will read.
 */
export function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}
