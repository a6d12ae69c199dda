/**
 * Per-deployment health in /metrics, labelled by model id and deployment label (both from
 * the config file: bounded, never a secret), read from the router at each scrape.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { DeploymentRouter } from './deployment-router.ts';
import type { DeploymentQuota } from './deployment-window.ts';

const STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

export function registerRoutingMetrics(registry: Registry, router: DeploymentRouter): void {
  const labelNames = ['model', 'deployment'] as const;
  const gauge = (name: string, help: string, read: (entry: ReturnType<DeploymentRouter['snapshot']>[number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        for (const entry of router.snapshot()) this.set({ model: entry.model, deployment: entry.deployment }, read(entry));
      },
    });
  gauge('junction_deployment_breaker_state', 'Circuit breaker of each deployment: 0 closed, 1 half-open (probing), 2 open', (entry) => STATE_VALUE[entry.health.state]);
  gauge('junction_deployment_parked', '1 while a 429 with Retry-After keeps the deployment out', (entry) => (entry.health.parked(router.now()) ? 1 : 0));
  gauge('junction_deployment_in_flight', 'Calls waiting on the deployment in this process', (entry) => entry.health.inFlight);
  gauge('junction_deployment_latency_seconds', 'Moving average of the time to the answer (streams: to the first event)', (entry) => (entry.health.latencyMs ?? 0) / 1000);
  gauge('junction_deployment_error_rate', 'Share of failures over the recent calls of the breaker window', (entry) => entry.health.errorRate());
  const windowGauge = (name: string, help: string, read: (window: DeploymentQuota, limit: 'rpm' | 'tpm', now: number) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['model', 'deployment', 'limit'],
      registers: [registry],
      collect() {
        const now = router.now();
        for (const entry of router.snapshot()) {
          const { window } = entry;
          if (!window) continue;
          for (const limit of ['rpm', 'tpm'] as const) {
            if (window.limits[limit] !== undefined) this.set({ model: entry.model, deployment: entry.deployment, limit }, read(window, limit, now));
          }
        }
      },
    });
  windowGauge('junction_deployment_window_used', 'Requests (rpm) or tokens (tpm) a deployment used of its quota this minute (a shared window: as this process last saw it)', (window, limit, now) =>
    limit === 'rpm' ? window.requestsUsed(now) : window.tokensUsed(now),
  );
  windowGauge('junction_deployment_window_limit', "A deployment's configured requests (rpm) or tokens (tpm) per minute", (window, limit) => window.limits[limit] ?? 0);
  const counted = new Map<string, number>();
  new Counter({
    name: 'junction_deployment_calls_total',
    help: 'Calls answered by each deployment, by outcome (success, failure, rate_limited)',
    labelNames: ['model', 'deployment', 'outcome'],
    registers: [registry],
    collect() {
      for (const entry of router.snapshot()) {
        const totals = { success: entry.health.successes, failure: entry.health.failures, rate_limited: entry.health.rateLimited };
        for (const [outcome, total] of Object.entries(totals)) {
          const key = `${entry.model}\u0000${entry.deployment}\u0000${outcome}`;
          const before = counted.get(key) ?? 0;
          if (total > before) this.inc({ model: entry.model, deployment: entry.deployment, outcome }, total - before);
          counted.set(key, total);
        }
      }
    },
  });
}
