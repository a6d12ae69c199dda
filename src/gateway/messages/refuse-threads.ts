import type { FastifyReply } from 'fastify';
import { isPlainRecord } from '../../core/plain-record.ts';

/**
 * Message threads (`thread` on /v1/messages) keep a conversation on Anthropic's side,
 * which no other provider has and Junction does not store. The answer is the exact
 * refusal Anthropic gives a request it cannot thread: @anthropic-ai/sdk's tool runner
 * reads `error.details.error_code` and carries on without a thread, resending the
 * history itself. True when the reply was sent.
 */
export function refuseThreads(body: unknown, reply: FastifyReply): boolean {
  if (!isPlainRecord(body) || body['thread'] == null || body['thread'] === false) return false;
  void reply.code(400).send({
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message: 'Message threads are not supported by this gateway; send the whole conversation in `messages` instead.',
      details: { error_code: 'thread_unsupported_request', unsupported: ['thread'] },
    },
  });
  return true;
}
