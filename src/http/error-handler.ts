import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isJunctionError, JunctionError } from '../core/errors.ts';
import { isConnectionError } from '../store/connection-errors.ts';
import { databaseOutageAnswer, outageRefusal } from '../store/database-outage-answer.ts';
import { errorBody, errorFormatForUrl } from './error-shapes.ts';
import { invalidInput, isInvalidInputError } from './invalid-input-errors.ts';

/** Maps fastify's own errors (body parsing, size limits) into our code table. */
function toJunctionError(error: FastifyError): JunctionError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new JunctionError('request_too_large', 'The request body is larger than this endpoint accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new JunctionError('unsupported_media_type', `Unsupported Content-Type. ${error.message}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new JunctionError('invalid_request', 'The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new JunctionError('invalid_request', `The request body is not valid JSON: ${error.message}`);
    default:
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
        return new JunctionError('invalid_request', error.message, { status: error.statusCode });
      }
      return new JunctionError('internal_error', 'Internal error. The request id identifies it in the logs.', {
        cause: error,
      });
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: JunctionError): FastifyReply {
  const format = (request.routeOptions.config as { errorFormat?: string } | undefined)?.errorFormat;
  const shape = format === 'anthropic' || format === 'google' || format === 'openai' ? format : errorFormatForUrl(request.url);
  return reply.status(error.status).headers(error.headers).send(errorBody(error, shape));
}

/** The database cannot be used (or its connections are all busy): a 503 with Retry-After, worded by the kind of outage. */
export const databaseUnavailable = (cause: unknown): JunctionError => databaseOutageAnswer(cause) ?? outageRefusal('unreachable', cause);

/** How long a refused upload may keep sending before its connection is cut. */
const DISCARD_TIMEOUT_MS = 30_000;

/**
 * A refused oversized body is read to its end and discarded before the connection
 * may close: closing while the client still sends makes it see EPIPE/ECONNRESET
 * instead of the 413 (and SDKs then retry the upload). fastify asks for
 * `Connection: close` here; without it Node discards the rest and keeps the socket.
 */
function discardRestOfBody(request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.complete) return;
  reply.removeHeader('connection');
  const timer = setTimeout(() => request.raw.destroy(), DISCARD_TIMEOUT_MS);
  timer.unref();
  request.raw.once('end', () => clearTimeout(timer));
  request.raw.once('close', () => clearTimeout(timer));
  request.raw.resume();
}

/** A request's failure as a JunctionError; an internal one caused by a value the request sent is the client's 400. */
function classify(rawError: FastifyError, request: FastifyRequest): JunctionError {
  const internal = isJunctionError(rawError) ? rawError.code === 'internal_error' && rawError.cause : !isConnectionError(rawError) && rawError;
  if (internal && isInvalidInputError(internal)) {
    // The edge checks missed this value: a 400 for the client, a warning for the operator.
    request.log.warn({ err: rawError }, 'a request value reached the database and was refused there');
    return invalidInput(rawError);
  }
  if (isJunctionError(rawError)) return rawError;
  return isConnectionError(rawError) ? databaseUnavailable(rawError) : toJunctionError(rawError);
}

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((rawError: FastifyError, request, reply) => {
    const error = classify(rawError, request);
    if (error.status >= 500) request.log.error({ err: rawError }, 'request failed');
    if (rawError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') discardRestOfBody(request, reply);
    return sendError(request, reply, error);
  });
  app.setNotFoundHandler((request, reply) => sendError(request, reply, new JunctionError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`)));
}
