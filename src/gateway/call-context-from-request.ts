import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticatedKey } from '../http/auth-hook.ts';
import { clientSignal } from '../http/client-signal.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { requestTimeoutMs } from './request-timeout.ts';

/** The pipeline's view of an HTTP request: its key, id, disconnect signal and its own timeout. */
export const callContextFrom = (request: FastifyRequest, reply: FastifyReply, endpoint: string): CallContext => {
  const timeoutMs = requestTimeoutMs(request.headers);
  return {
    key: authenticatedKey(request),
    requestId: request.id,
    endpoint,
    signal: clientSignal(reply),
    ...(request.traceContext && { trace: request.traceContext }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
};
