import type { FastifyReply } from 'fastify';
import { abortListenersOf } from '../core/abort-listeners.ts';

/**
 * An AbortSignal that fires when the client goes away before the response is
 * complete, so the pipeline aborts the upstream call instead of paying for output
 * nobody will read. Listeners added through `onAbort` (the upstream call's) are kept
 * beside the signal (see abort-listeners.ts) and called right after it aborts.
 */
export function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const listeners = abortListenersOf(controller.signal);
  reply.raw.once('close', () => {
    if (reply.raw.writableFinished) return;
    controller.abort(new Error('client disconnected'));
    for (const listener of listeners) listener();
    listeners.clear();
  });
  return controller.signal;
}
