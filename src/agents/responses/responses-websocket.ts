import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { JunctionError } from '../../core/errors.ts';
import { agentRunFailure } from '../agent-run-failure.ts';
import { apiKeyFromRequest } from '../../http/api-key-from-request.ts';
import { authenticatedKey } from '../../http/auth-hook.ts';
import { deepJsonError } from '../../http/json-nesting-depth.ts';
import { parseInput } from '../../http/parse-body.ts';
import { unstorableValueError } from '../../http/unstorable-text.ts';
import type { AgentsApiDeps } from '../api/agents-api-deps.ts';
import { ConnectionResponses } from './connection-responses.ts';
import { startForegroundResponse } from './foreground-response.ts';
import { prepareOptions, prepareResponse } from './response-preparation.ts';
import { CreateResponseSchema } from './response-request-schema.ts';

/** HTTP-only fields a `response.create` message must not carry (the socket is the stream). */
const HTTP_ONLY_FIELDS = ['stream', 'stream_options', 'background'] as const;

/** The spec's WebSocketErrorEvent. */
const errorMessage = (failure: JunctionError) => ({
  type: 'error',
  status: failure.status,
  error: { type: failure.type, code: failure.code, message: failure.message, param: failure.param },
});

/**
 * Open Responses WebSocket mode on `GET /agents/v1/responses` (upgrade): the key is
 * checked at the upgrade, then each `{"type": "response.create", ...body}` message runs
 * one response, in order, and its semantic events go back one JSON message each, as on
 * the SSE stream; the next message waits for the previous response to end. A bad
 * message or a failed run is a WebSocketErrorEvent for that turn; the connection stays.
 * Closing the socket cancels the response under way (billed for what it used).
 */
export async function responsesWebSocketRoute(app: FastifyInstance, deps: AgentsApiDeps): Promise<void> {
  app.get(
    '/responses',
    {
      websocket: true,
      // The key travels in the upgrade's Authorization header; a console session cookie alone
      // does not open a socket (a cross-site page could otherwise ride on it).
      preHandler: async (request) => {
        if (apiKeyFromRequest(request) === undefined) throw new JunctionError('invalid_api_key', 'Open the WebSocket with an agent key: Authorization: Bearer <key>.');
      },
    },
    (socket, request) => serveSocket(deps, socket, request),
  );
}

function serveSocket(deps: AgentsApiDeps, socket: WebSocket, request: FastifyRequest): void {
  const key = authenticatedKey(request);
  const owner = { accountId: key.accountId, keyId: key.id };
  const closed = new AbortController();
  socket.on('close', () => closed.abort());
  const send = (message: unknown) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  let turns = 0;
  const remembered = new ConnectionResponses();
  let queue = Promise.resolve();
  // Attached at once (messages arriving before a listener would be lost); run one at a time.
  socket.on('message', (data, isBinary) => {
    queue = queue.then(() => (closed.signal.aborted ? undefined : respond(isBinary ? undefined : data.toString())));
  });

  const respond = async (text: string | undefined): Promise<void> => {
    turns += 1;
    let continued: string | null | undefined;
    try {
      const body = parseMessage(text);
      continued = body.previous_response_id;
      const requested = await deps.agents.require(owner.accountId, body.model);
      const prepared = await prepareResponse(deps.db, requested, owner, body, { ...prepareOptions(deps), remembered });
      const context = { key, requestId: `${request.id}-${turns}`, endpoint: 'agents.responses', signal: closed.signal, ...(request.traceContext && { trace: request.traceContext }) };
      const response = await startForegroundResponse(deps, { owner, body, prepared, context, log: request.log, remembered });
      await response.stream(
        async (events) => {
          for (const event of events) send(event);
        },
        // Mid-run, the stream's own error event (it takes a sequence number) with the socket's `status`.
        (failure, encoder) => ({ ...encoder.error(failure), status: failure.status }),
      );
    } catch (error) {
      const failure = agentRunFailure(error, 'The response could not be run.');
      if (failure.status >= 500) request.log.error({ err: error }, 'websocket response failed');
      // However it failed, a continuation forgets the unstored response it named (the spec's retry rule).
      if (continued) remembered.forget(continued);
      send(errorMessage(failure));
    }
  };
}

/** A `response.create` message as a CreateResponse body, or a 400 naming what is wrong. */
function parseMessage(text: string | undefined) {
  if (text === undefined) throw new JunctionError('invalid_request', 'Send each message as JSON text, not binary.');
  // The HTTP body parser's edge rules, for a text that never passes through it.
  const tooDeep = deepJsonError(text, 'message');
  if (tooDeep) throw tooDeep;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new JunctionError('invalid_request', 'The message is not valid JSON.');
  }
  const unstorable = unstorableValueError(message, 'message');
  if (unstorable) throw unstorable;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw new JunctionError('invalid_request', 'The message must be a JSON object.');
  const { type, ...body } = message as Record<string, unknown>;
  if (type !== 'response.create') throw new JunctionError('invalid_request', `Unknown message type ${JSON.stringify(type)}; send {"type": "response.create", ...}.`, { param: 'type' });
  for (const field of HTTP_ONLY_FIELDS) {
    if (field in body) throw new JunctionError('invalid_request', `'${field}' is for HTTP requests; over a WebSocket every response streams.`, { param: field });
  }
  return { ...parseInput(CreateResponseSchema, body, 'message'), stream: true };
}
