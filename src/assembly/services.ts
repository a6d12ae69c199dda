import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { loggerOptions } from '../http/logger-options.ts';
import { type Account, ensureDefaultAccount } from '../accounts/account-repository.ts';
import { BudgetLeases } from '../billing/budget-leases.ts';
import { releaseHolderLeases } from '../billing/lease-sql.ts';
import type { SettlementQueue } from '../billing/settlement-queue.ts';
import type { Catalog } from '../catalog/types.ts';
import type { AgentDirectory } from '../agents/agent-directory.ts';
import type { AgentRegistry } from '../agents/agent-registry.ts';
import type { AgentRuntimeDeps } from '../agents/agent-runner.ts';
import type { BackgroundRuns } from '../agents/durable/background-runs.ts';
import { resolveModel } from '../catalog/lookup.ts';
import type { EnvConfig } from '../config/env-config.ts';
import { KnowledgeSync } from '../knowledge/knowledge-sync.ts';
import { pipelineEmbedder } from '../knowledge/pipeline-embedder.ts';
import { systemKeyFor } from '../keys/system-key.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { type FileConfiguration, loadFileConfiguration } from './file-configuration.ts';
import { DEFAULT_USD_RATES } from '../credits/currency-rates.ts';
import { KeyAuthenticator } from '../keys/key-authenticator.ts';
import { KeyChangeSync } from '../keys/key-change-sync.ts';
import { KeyHasher } from '../keys/key-hash.ts';
import { AccountPlans } from '../pipeline/account-plans.ts';
import { ChatPipeline } from '../pipeline/chat-pipeline.ts';
import { deploymentQuotas } from '../pipeline/deployment-quotas.ts';
import { KeyRateLimiter } from '../pipeline/rate-limiter.ts';
import { UnaryPipeline } from '../pipeline/unary-pipeline.ts';
import type { RetryPolicy } from '../pipeline/upstream-attempts.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import type { Database } from '../store/database.ts';
import { migrate } from '../store/migrate.ts';
import { DrainState } from '../ops/drain-state.ts';
import { JunctionMetrics } from '../ops/metrics.ts';
import { enableTracing } from '../ops/tracing.ts';
import { DeploymentRouter } from '../routing/deployment-router.ts';
import { registerRoutingMetrics } from '../routing/routing-metrics.ts';
import { openDatabase } from '../store/open-database.ts';
import { OpeningDatabase } from '../store/opening-database.ts';
import { ProcessRegistration, unregisteredHolder } from '../store/process-registry.ts';
import { type AgentServices, agentServices } from './agent-services.ts';
import type { ServiceBuild } from './service-build.ts';
import { responseCacheServices } from './response-cache-services.ts';
import { journalUnwritten, settlementServices } from './settlement-services.ts';
import { usagePartitionServices } from './usage-partition-services.ts';

/** Everything a running Junction holds: opened once, shared by the HTTP app and the CLI. */
export type Services = {
  config: EnvConfig;
  db: Database;
  hasher: KeyHasher;
  authenticator: KeyAuthenticator;
  keyChanges: KeyChangeSync;
  /** This process's row in the registry of live processes (leases, change acknowledgements). */
  registration: ProcessRegistration | undefined;
  catalog: Catalog;
  providers: ProviderRegistry;
  plans: AccountPlans;
  settlements: SettlementQueue;
  budgets: BudgetLeases;
  rateLimiter: KeyRateLimiter;
  chat: ChatPipeline;
  unary: UnaryPipeline;
  /** Deployment health and rpm/tpm windows of this process (the console's Models page reads it). */
  router: DeploymentRouter;
  /** Absent in short-lived tools that do not serve agents (the CLI). */
  agents: AgentRegistry | undefined;
  /** Prometheus metrics of this process (GET /metrics). */
  metrics: JunctionMetrics;
  /** Set once a shutdown begins: readiness then says "draining". */
  drain: DrainState;
  /** Agents by owning account: file agents and console agents (absent with agents). */
  agentDirectory: AgentDirectory | undefined;
  tools: ToolRegistry | undefined;
  agentRuntime: AgentRuntimeDeps | undefined;
  /** Background Responses runs held by this process (absent without agents or a registration). */
  backgroundRuns: BackgroundRuns | undefined;
  knowledge: KnowledgeSync;
  defaultAccount: Account;
  /** True when this start created the default account (a brand-new store). */
  firstStart: boolean;
  now: () => Date;
  warnings: string[];
  /** The process's logger (pino, secrets redacted); the HTTP app logs through it too. */
  logger: Logger;
  close(): Promise<void>;
};

export type ServiceOptions = {
  now?: () => Date;
  /** An opened store, or one being opened (the server starts that before loading its modules). */
  database?: Database | Promise<Database>;
  /** False for short-lived tools (the CLI): they serve no requests and hold no leases. */
  registerProcess?: boolean;
  /** Where provider credentials and the config file path are read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  retry?: RetryPolicy;
  redis?: Redis;
  /** Load and watch agents/ and tools/ (default true). */
  loadAgents?: boolean;
  /** Log sink for refused agent/tool files (default: the logger, level error). */
  onConfigError?: (error: Error) => void;
};

/** Services built, and the start-up work they still do in the store (a server listens once `started` resolves). */
export type OpeningServices = { services: Services; started: Promise<void> };

/** Everything a running Junction holds, started: the CLI, tests and benches take them whole. */
export async function createServices(config: EnvConfig, options: ServiceOptions = {}): Promise<Services> {
  const { services, started } = await openServices(config, options);
  await started;
  return services;
}

/**
 * Builds the services on the store while it opens, and returns them with their start
 * still running in the store: migrations, the default account, stale leases reclaimed,
 * this process registered, journals replayed, change listeners and background runs
 * started. The server builds its HTTP app meanwhile: on an embedded store's start, the
 * engine's thread spent about 1.3 s opening and 0.2-0.35 s on these steps while the
 * server's thread, its modules loaded, waited for them before building its services and
 * app (0.25-0.45 s more).
 * Nothing may be served before `started` resolves; if it rejects (the store could not
 * open, a migration failed), everything it started is stopped and the store closed.
 */
export async function openServices(config: EnvConfig, options: ServiceOptions = {}): Promise<OpeningServices> {
  const env = options.env ?? process.env;
  const logger = pino(loggerOptions(config.logLevel) as object);
  const onConfigError = options.onConfigError ?? ((error: Error) => logger.error(error.message));
  const now = options.now ?? (() => new Date());
  // The catalog, tools and agents load while the store opens: neither needs the other.
  const files = loadFileConfiguration({ config, env, now, loadAgents: options.loadAgents !== false, logger, onConfigError });
  files.catch(() => undefined); // awaited below, or closed on a failed start
  const opening = options.database ?? openDatabase(config);
  // Every statement of the services waits for the migrations, which run as soon as the store is open.
  const db = opening instanceof Promise ? new OpeningDatabase(config.databaseUrl ? 'postgres' : 'pglite', opening, migrate) : opening;
  /**
   * Start-up steps that run in the store, in this order: those that need only the store
   * begin while the catalog, tools and agents load (storeSteps), the rest once everything is built.
   */
  const build: ServiceBuild = { config, env, db, logger, now, onConfigError, startSteps: [], stops: [() => closeFileConfiguration(files)] };
  const stopAll = async () => {
    for (const stop of build.stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    await db.close().catch(() => undefined);
  };
  /** The default account, known once the store has it (the first start step). */
  let defaultAccount: { account: Account; created: boolean } | undefined;
  const knownDefaultAccount = () => {
    if (!defaultAccount) throw new Error('the default account is read before the services have started');
    return defaultAccount;
  };
  build.startSteps.push(async () => {
    // The open's or a migration's own error (an unreachable server, a locked folder), not a later statement's.
    if (db instanceof OpeningDatabase) await db.ready();
    else await migrate(db);
    defaultAccount = await ensureDefaultAccount(db);
  });
  let storeSteps: Promise<void> | undefined;
  let services: Services;
  try {
    services = await buildServices(build, options, files, knownDefaultAccount, () => {
      storeSteps = runInOrder(build.startSteps.splice(0));
      storeSteps.catch(() => undefined); // awaited by `started`, or before stopping on a failed build
    });
  } catch (error) {
    // What the store steps started must be among the stops before they run.
    await storeSteps?.catch(() => undefined);
    await stopAll();
    throw error;
  }
  const started = (async () => {
    try {
      await storeSteps;
      await runInOrder(build.startSteps);
    } catch (error) {
      await stopAll();
      throw error;
    }
  })();
  started.catch(() => undefined); // the caller awaits it; a failed build of its own must not leave it unhandled
  return { services, started };
}

/**
 * The services themselves. `beginStoreSteps` is called once the steps that need only the
 * store are queued: on an embedded store's start they took the engine 0.25-0.3 s after it
 * opened, and they begin before the file configuration is awaited.
 */
async function buildServices(
  build: ServiceBuild,
  options: ServiceOptions,
  files: Promise<FileConfiguration>,
  knownDefaultAccount: () => { account: Account; created: boolean },
  beginStoreSteps: () => void,
): Promise<Services> {
  const { config, env, db, logger, now, startSteps, stops } = build;
  // Traces only when an OTLP endpoint is configured: the SDK is not even loaded otherwise.
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) await enableTracing({ endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME ?? 'junction' });
  const hasher = new KeyHasher(config.keySecret);
  const authenticator = new KeyAuthenticator(db, hasher, now);
  const registration = options.registerProcess === false ? undefined : new ProcessRegistration(db, config.leaseTimeoutSeconds);
  // Created once the catalog is known (its model ids bound the metrics' labels).
  const metricsHolder: { current?: JunctionMetrics } = {};
  const { settlements, journalDir } = settlementServices(build, registration, metricsHolder);
  const budgets = new BudgetLeases(db, registration ?? unregisteredHolder('00000000-0000-0000-0000-000000000000'), settlements, now);
  // A changed key drops its cached copy and the budget leased under its old limits.
  const keyChanges = new KeyChangeSync(db, registration, (lookupId) => {
    authenticator.forget(lookupId);
    budgets.keyChanged(lookupId);
  });
  startSteps.push(async () => {
    await keyChanges.start();
    stops.push(() => keyChanges.stop());
  });
  usagePartitionServices(build);
  beginStoreSteps();

  const { catalogConfig, catalog, providers, tools, agents, warnings } = await files;
  const metrics = new JunctionMetrics({ settlements, db, catalog });
  metricsHolder.current = metrics;
  config.usdRates = { ...DEFAULT_USD_RATES, ...catalogConfig.currencies, ...config.envUsdRates };
  const plans = new AccountPlans(db, registration);
  startSteps.push(async () => {
    await plans.start();
    stops.push(() => plans.stop());
  });
  const redis = await sharedRedis(build, options.redis);
  const rateLimiter = new KeyRateLimiter(redis, db);
  const clock = () => now().getTime();
  // Deployment health is per process, like the retries it steers; their rpm/tpm windows are shared as keys' are. /metrics shows both.
  const router = new DeploymentRouter({ now: clock, quotaOf: deploymentQuotas(redis, db, clock) });
  registerRoutingMetrics(metrics.registry, router);
  const pipelineDeps = { catalog, budgets, rateLimiter, plans, providers, router, responseCache: responseCacheServices(build), ...(options.retry && { retry: options.retry }) };
  const chat = new ChatPipeline(pipelineDeps);
  const unary = new UnaryPipeline(pipelineDeps);
  const embeddingModel = config.embeddingModel && resolveModel(catalog, config.embeddingModel) ? config.embeddingModel : undefined;
  if (config.embeddingModel && !embeddingModel) logger.warn(`JUNCTION_EMBEDDING_MODEL ${config.embeddingModel} is not in the catalog; knowledge search uses full text only`);
  const knowledge = knowledgeSync(build, unary, embeddingModel);
  const agentParts: AgentServices =
    agents && tools
      ? await agentServices(build, { agents, tools, chat, unary, budgets, settlements, knowledge, embeddingModel, registration, defaultAccountId: () => knownDefaultAccount().account.id })
      : { agentRuntime: undefined, agentDirectory: undefined, backgroundRuns: undefined };
  return {
    ...agentParts,
    config,
    db,
    hasher,
    authenticator,
    keyChanges,
    registration,
    catalog,
    providers,
    plans,
    settlements,
    budgets,
    rateLimiter,
    chat,
    unary,
    router,
    agents,
    metrics,
    drain: new DrainState(),
    tools,
    knowledge,
    now,
    logger,
    warnings,
    get defaultAccount() {
      return knownDefaultAccount().account;
    },
    get firstStart() {
      return knownDefaultAccount().created;
    },
    close: () => closeServices(build, { budgets, journalDir, registration }),
  };
}

/** REDIS_URL: rate-limit windows in Redis (else in PostgreSQL, or in the one process PGlite serves). */
async function sharedRedis({ config, logger, stops }: ServiceBuild, given: Redis | undefined): Promise<Redis | undefined> {
  if (given || !config.redisUrl) return given;
  // Loaded only when configured: most deployments have no Redis, and the client costs start-up time and memory.
  const { Redis: RedisClient } = await import('ioredis');
  const client = new RedisClient(config.redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 2, lazyConnect: false });
  client.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection problem'));
  stops.push(async () => {
    await client.quit().catch(() => client.disconnect());
  });
  return client;
}

/** The knowledge/ folder's collections, indexed per account (embedded when an embedding model is configured). */
function knowledgeSync({ config, db, now, logger, onConfigError }: ServiceBuild, unary: UnaryPipeline, embeddingModel: string | undefined): KnowledgeSync {
  return new KnowledgeSync({
    db,
    knowledgeDir: config.knowledgeDir,
    embedderFor: (accountId) =>
      embeddingModel
        ? pipelineEmbedder(unary, { key: systemKeyFor(accountId, now()), requestId: 'knowledge-sync', endpoint: 'knowledge.index', signal: new AbortController().signal }, embeddingModel)
        : undefined,
    onError: onConfigError,
    onIndexed: (accountId, report, ms) =>
      logger.info(
        {
          account: accountId,
          ms,
          collections: report.collections.map((collection) => ({
            name: collection.collection,
            documents: collection.documentsTotal,
            chunks: collection.chunksTotal,
            embedded: collection.chunksEmbedded,
          })),
          ...(report.collectionsRemoved.length > 0 && { removed: report.collectionsRemoved }),
        },
        'knowledge indexed',
      ),
  });
}

/** Stops everything started, returns unused budget and writes pending settlements (or journals them) before the store closes. */
async function closeServices(
  { db, logger, stops }: ServiceBuild,
  { budgets, journalDir, registration }: { budgets: BudgetLeases; journalDir: string | undefined; registration: ProcessRegistration | undefined },
): Promise<void> {
  for (const stop of stops.reverse()) await stop();
  const unwritten = await budgets.close();
  if (unwritten.length > 0) await journalUnwritten(logger, journalDir, registration?.id, unwritten);
  if (registration)
    await releaseHolderLeases(db, registration.id).catch((error: unknown) =>
      logger.error({ err: error }, 'returning leases at shutdown failed; they are reclaimed once this process is seen as stale'),
    );
  await registration?.stop();
  await db.close();
}

async function runInOrder(steps: ReadonlyArray<() => Promise<void> | void>): Promise<void> {
  for (const step of steps) await step();
}

/** Stops the folder watchers of the file configuration, once it has loaded (or failed to). */
async function closeFileConfiguration(loading: Promise<FileConfiguration>): Promise<void> {
  const files = await loading.catch(() => undefined);
  files?.close();
}
