import type { Context, Span } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { contextWith, endSpan, extractContext, SpanKind, startSpan } from './tracing.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span context (tracing on): pipeline and agent spans hang under it. */
    traceContext: Context | undefined;
    traceSpan: Span | undefined;
  }
}

/** A server span per request, continuing the caller's `traceparent` when there is one. */
export function registerRequestSpans(app: FastifyInstance): void {
  app.decorateRequest('traceContext', undefined);
  app.decorateRequest('traceSpan', undefined);
  app.addHook('onRequest', async (request) => {
    const parent = extractContext(request.headers);
    const route = request.routeOptions.url ?? 'unmatched';
    request.traceSpan = startSpan(`${request.method} ${route}`, parent, { 'http.request.method': request.method, 'http.route': route }, SpanKind.SERVER);
    request.traceContext = contextWith(request.traceSpan, parent);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.traceSpan?.setAttribute('http.response.status_code', reply.statusCode);
    endSpan(request.traceSpan, reply.statusCode >= 500 ? new Error(`HTTP ${reply.statusCode}`) : undefined);
  });
}
