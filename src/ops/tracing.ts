import { context as otelContext, type Context, propagation, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { BasicTracerProvider, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * OpenTelemetry traces, only when asked for (OTEL_EXPORTER_OTLP_ENDPOINT, or an exporter
 * given by a test): a span per HTTP request (continuing an incoming `traceparent`), per
 * pipeline call with the GenAI conventions (`gen_ai.*`) and the cost, per upstream
 * attempt, per agent run, tool call and retrieval. Without it, `tracer()` is undefined
 * and every call site skips its span: only the small API package is loaded (the SDK is
 * imported when tracing is enabled), nothing costs.
 */
let active: { tracer: Tracer; provider: BasicTracerProvider } | undefined;

export const tracer = (): Tracer | undefined => active?.tracer;

export async function enableTracing(options: { exporter?: SpanExporter; endpoint?: string; serviceName?: string }): Promise<void> {
  if (active) return;
  const [{ AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor }] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  let processor: SpanProcessor;
  if (options.exporter) {
    processor = new SimpleSpanProcessor(options.exporter);
  } else {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processor = new BatchSpanProcessor(new OTLPTraceExporter(options.endpoint ? { url: `${options.endpoint.replace(/\/$/, '')}/v1/traces` } : {}));
  }
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  otelContext.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  active = { tracer: provider.getTracer(options.serviceName ?? 'junction'), provider };
}

export async function disableTracing(): Promise<void> {
  const current = active;
  active = undefined;
  await current?.provider.shutdown();
  otelContext.disable();
  propagation.disable();
}

/** The context of an incoming request: its `traceparent`, if any. */
export function extractContext(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(otelContext.active(), headers);
}

/** Starts a child span of `parent` (a Context from extractContext or contextWith), or none when tracing is off. */
export function startSpan(name: string, parent: Context | undefined, attributes: Record<string, string | number | boolean> = {}, kind: SpanKind = SpanKind.INTERNAL): Span | undefined {
  return active?.tracer.startSpan(name, { kind, attributes }, parent ?? otelContext.active());
}

export const contextWith = (span: Span | undefined, parent: Context | undefined): Context | undefined => (span ? trace.setSpan(parent ?? otelContext.active(), span) : parent);

export function endSpan(span: Span | undefined, error?: unknown): void {
  if (!span) return;
  if (error !== undefined) {
    span.recordException(error instanceof Error ? error : new Error(String(error)));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end();
}

export { SpanKind };
