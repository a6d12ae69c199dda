import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Gauge, Registry } from 'prom-client';
import type { SettlementQueue } from '../billing/settlement-queue.ts';
import type { UsageRecord } from '../billing/usage-record.ts';
import type { Catalog } from '../catalog/types.ts';
import { JunctionError } from '../core/errors.ts';
import { openStreams } from '../http/raw-stream-writer.ts';
import type { Database } from '../store/database.ts';
import { accountTurnStats, reportingReadsOf } from '../store/reporting-reads.ts';
import { registerDurabilityMetrics } from './durability-metrics.ts';
import { FastCounter, FastHistogram } from './fast-metrics.ts';
import { totalCounter } from './total-counter.ts';

/**
 * The process's Prometheus metrics. Labels are bounded and never carry secrets or user
 * content: routes are patterns (`/v1/models/*`), models are catalog ids ("unknown"
 * otherwise), tools and agents come from configuration. Counters and histograms are
 * FastCounter / FastHistogram (label values in order, no labels object per call).
 */
export class JunctionMetrics {
  readonly registry = new Registry();
  readonly #requests = new FastCounter({
    name: 'junction_http_requests_total',
    help: 'HTTP requests by route pattern, method, status and caller kind',
    labelNames: ['route', 'method', 'status', 'caller'],
    registers: [this.registry],
  });
  readonly #latency = new FastHistogram({
    name: 'junction_http_request_duration_seconds',
    help: 'Time to the full answer (streams: until their end)',
    labelNames: ['route', 'method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly #calls = new FastCounter({
    name: 'junction_model_calls_total',
    help: 'Model and tool calls by model, provider, endpoint and usage status',
    labelNames: ['model', 'provider', 'endpoint', 'status'],
    registers: [this.registry],
  });
  readonly #attempts = new FastCounter({
    name: 'junction_upstream_attempts_total',
    help: 'Upstream attempts (retries and fallbacks included) by provider',
    labelNames: ['provider'],
    registers: [this.registry],
  });
  readonly #tokens = new FastCounter({ name: 'junction_tokens_total', help: 'Tokens by model and direction', labelNames: ['model', 'direction'], registers: [this.registry] });
  readonly #cost = new FastCounter({ name: 'junction_cost_usd_total', help: 'Billed cost in USD by model', labelNames: ['model'], registers: [this.registry] });
  readonly #latencyModel = new FastHistogram({
    name: 'junction_model_call_duration_seconds',
    help: 'Model call latency by provider (first attempt to settlement)',
    labelNames: ['provider'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly #toolCalls = new FastCounter({
    name: 'junction_agent_tool_calls_total',
    help: 'Server-side agent tool calls by tool and outcome',
    labelNames: ['tool', 'outcome'],
    registers: [this.registry],
  });
  readonly #agentCalls = new FastCounter({ name: 'junction_agent_model_calls_total', help: 'Model calls made by agent runs, by agent', labelNames: ['agent'], registers: [this.registry] });

  constructor(services: { settlements: SettlementQueue; db: Database; catalog: Catalog }) {
    const knownModels = new Set(services.catalog.models.map((model) => model.id));
    this.#modelLabel = (model) => (model && knownModels.has(model) ? model : 'unknown');
    new Gauge({
      name: 'junction_open_streams',
      help: 'Streamed responses open in this process',
      registers: [this.registry],
      collect() {
        this.set(openStreams());
      },
    });
    new Gauge({
      name: 'junction_settlement_queue_depth',
      help: 'Settlements not yet in the database (queued, or in the statement being written)',
      registers: [this.registry],
      collect() {
        this.set(services.settlements.backlog().depth);
      },
    });
    new Gauge({
      name: 'junction_settlement_oldest_pending_seconds',
      help: 'Age of the oldest settlement not yet in the database',
      registers: [this.registry],
      collect() {
        this.set(services.settlements.backlog().oldestPendingAgeMs / 1000);
      },
    });
    new Gauge({
      name: 'junction_settlements_kept_aside',
      help: 'Settlements no write could take (logged; journaled at shutdown)',
      registers: [this.registry],
      collect() {
        this.set(services.settlements.poisonedCount);
      },
    });
    const engineCpu = services.db.engineCpuSeconds?.bind(services.db);
    if (engineCpu) totalCounter(this.registry, 'junction_embedded_store_cpu_seconds_total', "CPU time of the embedded store's engine thread (PGlite), part of the process's own CPU time", engineCpu);
    const durability = services.db.durabilityCounts?.bind(services.db);
    if (durability) registerDurabilityMetrics(this.registry, durability);
    const pool = services.db.poolStats?.bind(services.db);
    if (pool) {
      new Gauge({
        name: 'junction_db_pool_connections',
        help: 'Database pool connections by state',
        labelNames: ['state'],
        registers: [this.registry],
        collect() {
          const stats = pool();
          this.set({ state: 'total' }, stats.total);
          this.set({ state: 'idle' }, stats.idle);
          this.set({ state: 'waiting' }, stats.waiting);
        },
      });
    }
    const reads = reportingReadsOf(services.db);
    new Gauge({
      name: 'junction_db_read_connections',
      help: 'Console and reporting reads: their connections (slots on the embedded store) by state',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const stats = reads.stats();
        this.set({ state: 'max' }, stats.max);
        this.set({ state: 'in_use' }, stats.inUse);
        this.set({ state: 'waiting' }, stats.waiting);
        this.set({ state: 'waiting_for_account' }, accountTurnStats(services.db).waiting);
      },
    });
    totalCounter(
      this.registry,
      'junction_db_read_account_busy_total',
      "Console and reporting reads refused (503) because their account's earlier reads stayed in progress",
      () => accountTurnStats(services.db).busyRefusals,
    );
    totalCounter(
      this.registry,
      'junction_db_read_account_rate_limited_total',
      'Console and reporting reads refused (429) because their account read faster than its share',
      () => accountTurnStats(services.db).rateRefusals,
    );
    totalCounter(this.registry, 'junction_db_read_pool_busy_total', 'Console and reporting reads refused (503) because every reading connection stayed in use', () => reads.stats().busyRefusals);
  }

  readonly #modelLabel: (model: string | null) => string;

  /** Counts one settled call (wired to the settlement queue). */
  observeUsage(usage: UsageRecord): void {
    if (usage.endpoint === 'agents.tool') {
      const tool = usage.requestedModel?.startsWith('tool:') ? usage.requestedModel.slice(5) : 'unknown';
      this.#toolCalls.inc([tool.length <= 64 ? tool : 'unknown', usage.status]);
      return;
    }
    const model = this.#modelLabel(usage.model);
    const provider = usage.provider ?? 'none';
    this.#calls.inc([model, provider, usage.endpoint.length <= 48 ? usage.endpoint : 'other', usage.status]);
    if (usage.status === 'rejected') return;
    this.#attempts.inc([provider], usage.attempts);
    if (usage.inputTokens > 0) this.#tokens.inc([model, 'input'], usage.inputTokens);
    if (usage.outputTokens > 0) this.#tokens.inc([model, 'output'], usage.outputTokens);
    if (usage.costMicros > 0) this.#cost.inc([model], usage.costMicros / 1_000_000);
    if (usage.latencyMs !== null) this.#latencyModel.observe([provider], usage.latencyMs / 1000);
    if (usage.agentId) this.#agentCalls.inc([usage.agentId.length <= 64 ? usage.agentId : 'unknown']);
  }

  /** Counts one answered request (fastify onResponse); `route` is its pattern. */
  observeRequest(request: FastifyRequest, route: string, status: number, seconds: number): void {
    const caller = request.apiKey?.kind ?? (request.consoleCaller ? 'console' : 'none');
    this.#requests.inc([route, request.method, String(status), caller]);
    this.#latency.observe([route, request.method], seconds);
  }
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `GET /metrics` in Prometheus text format. With JUNCTION_METRICS_TOKEN set, only that
 * bearer token may read it; without it, only loopback clients.
 */
export function registerMetrics(app: FastifyInstance, deps: { metrics: JunctionMetrics; token: string | undefined }): void {
  // On the root instance, so every route's answers are counted.
  app.addHook('onResponse', (request, reply, done) => {
    // routeOptions builds a new object on every read: read once.
    const route = request.routeOptions.url ?? 'unmatched';
    if (route !== '/metrics') deps.metrics.observeRequest(request, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', async (request, reply) => {
    if (deps.token) {
      const given = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!sameSecret(given, deps.token)) throw new JunctionError('invalid_api_key', 'GET /metrics needs the JUNCTION_METRICS_TOKEN bearer token.');
    } else if (!LOOPBACK.has(request.ip) || !LOOPBACK.has(request.socket.remoteAddress ?? '')) {
      // Both the connection and the client a trusted proxy names must be local: a proxy on
      // this host must not open the metrics to its clients, nor a forged X-Forwarded-For.
      throw new JunctionError('forbidden', 'GET /metrics answers loopback clients only; set JUNCTION_METRICS_TOKEN to scrape it from elsewhere.');
    }
    return reply.header('content-type', deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
