import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastCounter, FastHistogram } from '../../../src/ops/fast-metrics.ts';

/** The request path's metrics expose exactly what prom-client's own classes would for the same calls. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

describe('FastCounter and FastHistogram', () => {
  it.each([Registry.PROMETHEUS_CONTENT_TYPE, Registry.OPENMETRICS_CONTENT_TYPE])('scrape to the same text as prom-client Counter and Histogram fed the same observations (%s)', async (contentType) => {
    // Typed for the default format; the content type is switched for the OpenMetrics run.
    const ours = new Registry();
    const theirs = new Registry();
    ours.setContentType(contentType as typeof Registry.PROMETHEUS_CONTENT_TYPE);
    theirs.setContentType(contentType as typeof Registry.PROMETHEUS_CONTENT_TYPE);
    const counter = new FastCounter({ name: 'calls_total', help: 'Calls', labelNames: ['route', 'status'], registers: [ours] });
    const referenceCounter = new Counter({ name: 'calls_total', help: 'Calls', labelNames: ['route', 'status'], registers: [theirs] });
    const histogram = new FastHistogram({ name: 'latency_seconds', help: 'Latency', labelNames: ['route'], buckets: BUCKETS, registers: [ours] });
    const referenceHistogram = new Histogram({ name: 'latency_seconds', help: 'Latency', labelNames: ['route'], buckets: BUCKETS, registers: [theirs] });
    const single = new FastCounter({ name: 'cost_total', help: 'Cost with "quotes" and a \\ backslash', labelNames: ['model'], registers: [ours] });
    const referenceSingle = new Counter({ name: 'cost_total', help: 'Cost with "quotes" and a \\ backslash', labelNames: ['model'], registers: [theirs] });

    // Values on bucket bounds, between them, beyond the last, and label values that need escaping.
    const samples: Array<[string, string, number]> = [
      ['/v1/chat/completions', '200', 0.005],
      ['/v1/chat/completions', '200', 0.0051],
      ['/v1/chat/completions', '429', 61],
      ['/v1/models/*', '200', 0],
      ['/a "quoted"\nroute\\', '500', 2.5],
    ];
    for (const [route, status, seconds] of samples) {
      counter.inc([route, status]);
      referenceCounter.inc({ route, status });
      histogram.observe([route], seconds);
      referenceHistogram.observe({ route }, seconds);
    }
    counter.inc(['/v1/chat/completions', '200'], 3);
    referenceCounter.inc({ route: '/v1/chat/completions', status: '200' }, 3);
    single.inc(['openai/gpt-4o'], 0.000125);
    referenceSingle.inc({ model: 'openai/gpt-4o' }, 0.000125);

    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toMatch(/calls(_total)?\{route="\/v1\/chat\/completions",status="200"\} 5/);
    expect(text).toContain('latency_seconds_bucket{le="0.005",route="/v1/chat/completions"} 1');
    expect(text).toContain('latency_seconds_bucket{le="+Inf",route="/v1/chat/completions"} 3');

    ours.resetMetrics();
    theirs.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('refuses a value that is not a finite number, as prom-client does', () => {
    const histogram = new FastHistogram({ name: 'h', help: 'h', labelNames: ['a'], buckets: [1], registers: [] });
    expect(() => histogram.observe(['x'], Number.NaN)).toThrow(TypeError);
  });
});
