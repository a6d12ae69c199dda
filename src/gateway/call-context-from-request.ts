import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticatedKey } from '../http/auth-hook.ts';
import { clientSignal } from '../http/client-signal.ts';
import type { CallContext } from '../pipeline/call-context.ts';

/** The pipeline's view of an HTTP request: its key, id and disconnect signal. */
export const callContextFrom = (request: FastifyRequest, reply: FastifyReply, endpoint: string): CallContext => ({
  key: authenticatedKey(request),
  requestId: request.id,
  endpoint,
  signal: clientSignal(reply),
  ...(request.traceContext && { trace: request.traceContext }),
});
