import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { loggerOptions } from '../http/logger-options.ts';
import { type Account, ensureDefaultAccount } from '../accounts/account-repository.ts';
import { BudgetLeases } from '../billing/budget-leases.ts';
import { reclaimStaleLeases, releaseHolderLeases } from '../billing/lease-sql.ts';
import type { Settlement } from '../billing/settlement.ts';
import { SettlementQueue } from '../billing/settlement-queue.ts';
import { replayShutdownJournals, writeShutdownJournal } from '../billing/shutdown-journal.ts';
import { SettlementFileJournal } from '../billing/settlement-file-journal.ts';
import { replaySettlementFiles } from '../billing/settlement-file-replay.ts';
import type { Catalog } from '../catalog/types.ts';
import { AccountNames } from '../accounts/account-names.ts';
import { AgentDirectory } from '../agents/agent-directory.ts';
import type { AgentRegistry } from '../agents/agent-registry.ts';
import { ConsoleAgentStore } from '../agents/console-agent-store.ts';
import type { AgentRuntimeDeps } from '../agents/agent-runner.ts';
import type { BackgroundRuns } from '../agents/durable/background-runs.ts';
import { resolveModel } from '../catalog/lookup.ts';
import type { EnvConfig } from '../config/env-config.ts';
import { AgentCheckpointer } from '../agents/durable/agent-checkpointer.ts';
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
import { KeyRateLimiter } from '../pipeline/rate-limiter.ts';
import { UnaryPipeline } from '../pipeline/unary-pipeline.ts';
import type { RetryPolicy } from '../pipeline/upstream-attempts.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import type { Database } from '../store/database.ts';
import { migrate } from '../store/migrate.ts';
import { JunctionMetrics } from '../ops/metrics.ts';
import { enableTracing } from '../ops/tracing.ts';
import { CompactionSeal } from '../agents/responses/compaction-seal.ts';
import { openDatabase } from '../store/open-database.ts';
import { OpeningDatabase } from '../store/opening-database.ts';
import { ProcessRegistration, unregisteredHolder } from '../store/process-registry.ts';

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
  /** Absent in short-lived tools that do not serve agents (the CLI). */
  agents: AgentRegistry | undefined;
  /** Prometheus metrics of this process (GET /metrics). */
  metrics: JunctionMetrics;
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

/** Dead processes are looked for often enough that their calls settle within the lease timeout + 5 s. */
const reclaimIntervalMs = (leaseTimeoutSeconds: number): number => Math.min(5_000, (leaseTimeoutSeconds * 1000) / 3);

/**
 * The embedded store in a data folder: one process by construction (the folder is locked),
 * the case the settlement file journal is for. Not PostgreSQL, where several processes share
 * the database, nor a store in memory, which a crash loses whole.
 */
function embeddedStoreInFolder(config: EnvConfig, db: Database): boolean {
  return db.engine === 'pglite' && !config.databaseUrl && !config.dataDir.startsWith('memory://');
}

/**
 * The settlement file journal's folder: inside the store's own data folder, always. The
 * folder's lock makes its process the only one that writes or replays these files; a folder
 * shared by two stores (JUNCTION_JOURNAL_DIR can be) would replay one store's calls into the other.
 */
const settlementFileJournalDirectory = (config: EnvConfig): string => `${config.dataDir}/settling`;

/** Where unwritten settlements go at shutdown: JUNCTION_JOURNAL_DIR, else beside the embedded store (none for memory://). */
function journalDirectory(config: EnvConfig): string | undefined {
  if (config.journalDir) return config.journalDir;
  return config.dataDir.startsWith('memory://') ? undefined : `${config.dataDir}/journal`;
}

/** JUNCTION_RUN_LEASE_SECONDS: how long a background run's process may stay silent before another takes it over (default 30). */
function runLeaseSeconds(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.JUNCTION_RUN_LEASE_SECONDS ?? 30);
  if (!Number.isFinite(value) || value < 1 || value > 3_600) throw new Error('JUNCTION_RUN_LEASE_SECONDS must be a number of seconds between 1 and 3600');
  return value;
}

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
  const stops: Array<() => Promise<void> | void> = [() => closeFileConfiguration(files)];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    await db.close().catch(() => undefined);
  };
  /** The default account, known once the store has it (the first start step). */
  let defaultAccount: { account: Account; created: boolean } | undefined;
  const knownDefaultAccount = () => {
    if (!defaultAccount) throw new Error('the default account is read before the services have started');
    return defaultAccount;
  };
  /**
   * Start-up steps that run in the store, in this order: those that need only the store
   * begin while the catalog, tools and agents load (storeSteps), the rest once everything is built.
   */
  const startSteps: Array<() => Promise<void> | void> = [
    async () => {
      // The open's or a migration's own error (an unreachable server, a locked folder), not a later statement's.
      if (db instanceof OpeningDatabase) await db.ready();
      else await migrate(db);
      defaultAccount = await ensureDefaultAccount(db);
    },
  ];
  let storeSteps: Promise<void> | undefined;
  let services: Services;
  try {
    // Traces only when an OTLP endpoint is configured: the SDK is not even loaded otherwise.
    if (env.OTEL_EXPORTER_OTLP_ENDPOINT) await enableTracing({ endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME ?? 'junction' });
    const hasher = new KeyHasher(config.keySecret);
    const authenticator = new KeyAuthenticator(db, hasher, now);
    const registration = options.registerProcess === false ? undefined : new ProcessRegistration(db, config.leaseTimeoutSeconds);
    // Created once the catalog is known (its model ids bound the metrics' labels).
    let metrics: JunctionMetrics | undefined;
    const journalDir = journalDirectory(config);
    // On the embedded store, settled calls are durable in a file within 10 ms and written to the store every embeddedSettlementWindowMs.
    const settlingDir = embeddedStoreInFolder(config, db) ? settlementFileJournalDirectory(config) : undefined;
    const writeBehind = settlingDir
      ? {
          journal: new SettlementFileJournal(settlingDir, { onError: (error) => logger.error({ err: error, settlingDir }, 'the settlement file journal failed; settlements are written to the store every 10 ms from now on') }),
          windowMs: config.embeddedSettlementWindowMs,
        }
      : undefined;
    // On PostgreSQL, settled calls the database refuses wait in a file until it takes them: a process killed meanwhile loses none.
    const outageSettlingDir = !settlingDir && journalDir && registration ? `${journalDir}/settling` : undefined;
    const outageJournal = outageSettlingDir
      ? { journal: new SettlementFileJournal(outageSettlingDir, { onError: (error) => logger.error({ err: error, outageSettlingDir }, 'the settlement file journal failed; settlements the database refuses are held in memory only') }) }
      : undefined;
    const settlements = new SettlementQueue(
      db,
      registration?.id,
      {
        onError: (error) => logger.error({ err: error }, 'settlement flush failed; will retry'),
        onBacklog: (backlog) => logger.warn(backlog, 'settlements are waiting for the database'),
        onUsage: (usage) => metrics?.observeUsage(usage),
        onPoisoned: (settlement, error) =>
          logger.error({ err: error, usageId: settlement.usage?.id, spendMicros: settlement.spendMicros }, 'a settlement could not be written; kept for the shutdown journal'),
      },
      writeBehind,
      outageJournal,
    );
    if (settlingDir) {
      startSteps.push(async () => {
        // Calls the last process settled in its window before it died, before the reclaimer
        // settles its journaled calls as interrupted (settlement-file-replay.ts).
        const replayed = await replaySettlementFiles(settlingDir, settlements);
        if (replayed > 0) logger.info({ replayed, settlingDir }, 'replayed settlements from the settlement file journal');
      });
    }
    if (outageSettlingDir) {
      startSteps.push(async () => {
        // Calls a process on this machine served while the database refused them, and did not live to write.
        const replayed = await replaySettlementFiles(outageSettlingDir, settlements, { skipLiveWriters: true });
        if (replayed > 0) logger.info({ replayed, outageSettlingDir }, 'replayed settlements held while the database was refusing them');
      });
    }
    if (registration) {
      startSteps.push(async () => {
        // Leases of processes that died without returning them go back first.
        await reclaimStaleLeases(db, config.leaseTimeoutSeconds);
        await registration.start();
        const timer = setInterval(() => void reclaimStaleLeases(db, config.leaseTimeoutSeconds).catch(() => undefined), reclaimIntervalMs(config.leaseTimeoutSeconds));
        timer.unref();
        stops.push(() => clearInterval(timer));
      });
    }
    if (journalDir && registration) {
      startSteps.push(async () => {
        // Spend a previous process could not write at its shutdown lands before anything else.
        const replayed = await replayShutdownJournals(journalDir, settlements);
        if (replayed > 0) logger.info({ replayed, journalDir }, 'replayed settlements journaled at the last shutdown');
      });
    }
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

    // The steps so far need only the store. On an embedded store's start they took the
    // engine 0.25-0.3 s after it opened, and they waited for this thread to load the files
    // below when that ended later (by 0.1-0.35 s in start-up traces): they begin now.
    storeSteps = runInOrder(startSteps.splice(0));
    storeSteps.catch(() => undefined); // awaited by `started`, or before stopping on a failed build

    const { catalogConfig, catalog, providers, tools, agents, warnings } = await files;
    metrics = new JunctionMetrics({ settlements, db, catalog });
    config.usdRates = { ...DEFAULT_USD_RATES, ...catalogConfig.currencies, ...config.envUsdRates };

    const plans = new AccountPlans(db, registration);
    startSteps.push(async () => {
      await plans.start();
      stops.push(() => plans.stop());
    });
    // REDIS_URL: rate-limit windows shared by every process (else one window per process).
    let redis = options.redis;
    if (!redis && config.redisUrl) {
      // Loaded only when configured: most deployments have no Redis, and the client costs start-up time and memory.
      const { Redis: RedisClient } = await import('ioredis');
      const client = new RedisClient(config.redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 2, lazyConnect: false });
      client.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection problem'));
      redis = client;
      stops.push(async () => {
        await client.quit().catch(() => client.disconnect());
      });
    }
    const rateLimiter = new KeyRateLimiter(redis);
    const pipelineDeps = { catalog, budgets, rateLimiter, plans, providers, ...(options.retry && { retry: options.retry }) };
    const chat = new ChatPipeline(pipelineDeps);
    const unary = new UnaryPipeline(pipelineDeps);

    const embeddingModel = config.embeddingModel && resolveModel(catalog, config.embeddingModel) ? config.embeddingModel : undefined;
    if (config.embeddingModel && !embeddingModel) logger.warn(`JUNCTION_EMBEDDING_MODEL ${config.embeddingModel} is not in the catalog; knowledge search uses full text only`);
    const knowledge = new KnowledgeSync({
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
            collections: report.collections.map((collection) => ({ name: collection.collection, documents: collection.documentsTotal, chunks: collection.chunksTotal, embedded: collection.chunksEmbedded })),
            ...(report.collectionsRemoved.length > 0 && { removed: report.collectionsRemoved }),
          },
          'knowledge indexed',
        ),
    });
    let agentRuntime: AgentRuntimeDeps | undefined;
    let agentDirectory: AgentDirectory | undefined;
    let backgroundRuns: BackgroundRuns | undefined;
    if (agents && tools) {
      const consoleAgents = new ConsoleAgentStore(db);
      startSteps.push(async () => {
        await consoleAgents.start();
        stops.push(() => consoleAgents.stop());
      });
      const accountNames = new AccountNames(db);
      const directory = new AgentDirectory(agents, consoleAgents, accountNames, () => knownDefaultAccount().account.id);
      agentDirectory = directory;
      const { McpServers } = await import('../agents/mcp/mcp-servers.ts');
      const { tenantMcpPolicyFromEnv } = await import('../agents/mcp/tenant-mcp-policy.ts');
      const mcpPolicy = tenantMcpPolicyFromEnv(env);
      const mcp = new McpServers({ env, tenantPolicy: mcpPolicy, onError: (error, server) => logger.warn({ err: error, server: server.label }, 'an MCP server could not be reached; its tools are left out of this run') });
      stops.push(() => mcp.close());
      agentRuntime = {
        db,
        chat,
        budgets,
        tools,
        embedder: (context) => (embeddingModel ? pipelineEmbedder(unary, context, embeddingModel) : undefined),
        knowledgeReady: (accountId) => knowledge.ensureIndexed(accountId),
        // The running account's agents only: another account's id is no agent here.
        subAgent: (accountId, agentId) => directory.find(accountId, agentId),
        mcp,
        mcpPolicy,
        compactions: new CompactionSeal(config.keySecret),
        checkpointer: new AgentCheckpointer(db, {
          onError: (error) => logger.error({ err: error }, 'writing agent checkpoints failed'),
          // A durable checkpoint is written only once the calls of the steps it records are billed.
          beforeDurableWrite: () => settlements.writeQueued(),
        }),
      };
      startSteps.push(() => {
        knowledge.start();
        stops.push(() => knowledge.close());
      });
      if (registration) {
        const { BackgroundRuns } = await import('../agents/durable/background-runs.ts');
        const { executeBackgroundRun } = await import('../agents/responses/background-execution.ts');
        const runtime = agentRuntime;
        const executionDeps = { db, agents: agentDirectory, runtime, holderId: registration.id, logger };
        const runs = new BackgroundRuns({ db, holderId: registration.id, leaseSeconds: runLeaseSeconds(env), logger, execute: (row, signal, resumed) => executeBackgroundRun(executionDeps, row, signal, resumed) });
        startSteps.push(async () => {
          await runs.start();
          stops.push(() => runs.stop());
        });
        backgroundRuns = runs;
      }
    }
    services = {
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
      agents,
      agentDirectory,
      metrics,
      tools,
      agentRuntime,
      backgroundRuns,
      knowledge,
      get defaultAccount() {
        return knownDefaultAccount().account;
      },
      get firstStart() {
        return knownDefaultAccount().created;
      },
      now,
      logger,
      warnings,
      async close() {
        const journalUnwritten = async (unwritten: Settlement[]) => {
          const spendMicros = unwritten.reduce((sum, settlement) => sum + settlement.spendMicros, 0);
          if (!journalDir) {
            logger.error({ settlements: unwritten.length, spendMicros }, 'settlements could not be written and this store keeps no journal (memory://): they are lost');
            return;
          }
          const file = await writeShutdownJournal(journalDir, registration?.id ?? 'unregistered', unwritten);
          logger.warn({ settlements: unwritten.length, spendMicros, file }, 'the database was unreachable at shutdown: settlements journaled for the next start');
        };
        for (const stop of stops.reverse()) await stop();
        // Unused budget goes back and pending settlements are written before the store closes.
        const unwritten = await budgets.close();
        if (unwritten.length > 0) await journalUnwritten(unwritten);
        if (registration) await releaseHolderLeases(db, registration.id).catch((error: unknown) => logger.error({ err: error }, 'returning leases at shutdown failed; they are reclaimed once this process is seen as stale'));
        await registration?.stop();
        await db.close();
      },
    };
  } catch (error) {
    // What the store steps started must be among the stops before they run.
    await storeSteps?.catch(() => undefined);
    await stopAll();
    throw error;
  }
  const started = (async () => {
    try {
      await storeSteps;
      await runInOrder(startSteps);
    } catch (error) {
      await stopAll();
      throw error;
    }
  })();
  started.catch(() => undefined); // the caller awaits it; a failed build of its own must not leave it unhandled
  return { services, started };
}

async function runInOrder(steps: ReadonlyArray<() => Promise<void> | void>): Promise<void> {
  for (const step of steps) await step();
}

/** Stops the folder watchers of the file configuration, once it has loaded (or failed to). */
async function closeFileConfiguration(loading: Promise<FileConfiguration>): Promise<void> {
  const files = await loading.catch(() => undefined);
  files?.close();
}
