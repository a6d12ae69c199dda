import { z } from 'zod';
import { DEFAULT_USD_RATES, parseRatesEnv } from '../credits/currency-rates.ts';
import { type CorsOrigins, parseCorsOrigins } from '../http/cors-origins.ts';
import { EnvConfigError } from './env-config-error.ts';
import { PublicUrlSchema, type TrustProxy, TrustProxySchema } from './proxy-env.ts';
import { readStorageEnv } from './storage-env.ts';

/** Everything the service reads from the environment, validated once at start-up. */
const EnvSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  REDIS_URL: z.string().min(1).optional(),
  JUNCTION_CONFIG: z.string().min(1).optional(),
  JUNCTION_KEY_SECRET: z.string().min(1).optional(),
  JUNCTION_FX_RATES: z.string().optional(),
  JUNCTION_AGENTS_DIR: z.string().default('./agents'),
  JUNCTION_TOOLS_DIR: z.string().default('./tools'),
  JUNCTION_KNOWLEDGE_DIR: z.string().default('./knowledge'),
  JUNCTION_EMBEDDING_MODEL: z.string().min(1).optional(),
  JUNCTION_LEASE_TIMEOUT_SECONDS: z.coerce.number().int().min(3).max(3600).default(30),
  JUNCTION_JOURNAL_DIR: z.string().min(1).optional(),
  JUNCTION_EMBEDDED_SETTLEMENT_WINDOW_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  JUNCTION_METRICS_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  JUNCTION_STREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(60_000),
  JUNCTION_CORS_ORIGINS: z.string().optional(),
  JUNCTION_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(20_000),
  JUNCTION_TRUST_PROXY: TrustProxySchema,
  JUNCTION_PUBLIC_URL: PublicUrlSchema,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type EnvConfig = {
  host: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  /** JUNCTION_PGLITE_SHARED_BUFFERS: the embedded engine's buffer pool (unset: chosen from the store's vector indexes, pglite-store-memory.ts). */
  pgliteSharedBuffers: string | undefined;
  /** JUNCTION_PGLITE_PAGE_CACHE: the embedded store's page cache in bytes (default 256 MB, see pglite-database.ts). */
  pglitePageCacheBytes: number | undefined;
  redisUrl: string | undefined;
  configPath: string | undefined;
  /** HMAC key for API-key hashes. A built-in value when unset (see README, "Security"). */
  keySecret: string;
  /** USD rates in force: defaults, then the config file's `currencies:`, then JUNCTION_FX_RATES. */
  usdRates: Record<string, string>;
  /** Rates given by JUNCTION_FX_RATES alone (they win over the config file). */
  envUsdRates: Record<string, string>;
  agentsDir: string;
  toolsDir: string;
  knowledgeDir: string;
  /** Catalog id of the embedding model for knowledge; without it, knowledge search is full text only. */
  embeddingModel: string | undefined;
  /** Where settlements unwritten at shutdown are journaled (default: `<dataDir>/journal`, none for memory://). */
  journalDir: string | undefined;
  /**
   * On the embedded store (in a folder): how often settled calls are written to the database.
   * They are in the settlement file journal within 10 ms either way (settlement-file-journal.ts).
   */
  embeddedSettlementWindowMs: number;
  /** Bearer token for GET /metrics; without it, only loopback clients may read it. */
  metricsToken: string | undefined;
  /** A process silent this long is presumed dead: its leases return and its open calls settle as interrupted. */
  leaseTimeoutSeconds: number;
  /** A stream whose client has not read for this long is cut and billed as client_closed. */
  streamIdleTimeoutMs: number;
  /** Origins whose pages may call /v1, /v1beta and /agents/v1 from a browser (none when unset). */
  corsOrigins: CorsOrigins | undefined;
  /** After SIGTERM, requests still open this long are cut (and billed for what they produced). */
  shutdownGraceMs: number;
  /** Peers whose X-Forwarded-Proto / -Host / -For are believed (fastify's trustProxy); false when unset. */
  trustProxy: TrustProxy;
  /** The origin browsers reach the console at; when unset, each request's own (see src/http/public-origin.ts). */
  publicUrl: string | undefined;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
};

/** Used when JUNCTION_KEY_SECRET is unset: keys keep 256 bits of entropy, so hashes stay unguessable. */
const DEFAULT_KEY_SECRET = 'junction-api-key-hash-v1';

export function readEnvConfig(env: NodeJS.ProcessEnv = process.env): EnvConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EnvConfigError(`invalid environment: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const values = parsed.data;
  const storage = readStorageEnv(env);
  let corsOrigins: CorsOrigins | undefined;
  try {
    corsOrigins = parseCorsOrigins(values.JUNCTION_CORS_ORIGINS);
  } catch (error) {
    throw new EnvConfigError(`invalid environment: ${(error as Error).message}`);
  }
  const envUsdRates = values.JUNCTION_FX_RATES ? parseRatesEnv(values.JUNCTION_FX_RATES) : {};
  return {
    host: values.HOST,
    port: values.PORT,
    databaseUrl: storage.databaseUrl,
    dataDir: storage.dataDir,
    pgliteSharedBuffers: storage.pgliteSharedBuffers,
    pglitePageCacheBytes: storage.pglitePageCacheBytes,
    redisUrl: values.REDIS_URL,
    configPath: values.JUNCTION_CONFIG,
    keySecret: values.JUNCTION_KEY_SECRET ?? DEFAULT_KEY_SECRET,
    usdRates: { ...DEFAULT_USD_RATES, ...envUsdRates },
    envUsdRates,
    agentsDir: values.JUNCTION_AGENTS_DIR,
    toolsDir: values.JUNCTION_TOOLS_DIR,
    knowledgeDir: values.JUNCTION_KNOWLEDGE_DIR,
    embeddingModel: values.JUNCTION_EMBEDDING_MODEL,
    journalDir: values.JUNCTION_JOURNAL_DIR,
    embeddedSettlementWindowMs: values.JUNCTION_EMBEDDED_SETTLEMENT_WINDOW_MS,
    leaseTimeoutSeconds: values.JUNCTION_LEASE_TIMEOUT_SECONDS,
    metricsToken: values.JUNCTION_METRICS_TOKEN,
    streamIdleTimeoutMs: values.JUNCTION_STREAM_IDLE_TIMEOUT_MS,
    corsOrigins,
    shutdownGraceMs: values.JUNCTION_SHUTDOWN_GRACE_MS,
    trustProxy: values.JUNCTION_TRUST_PROXY,
    publicUrl: values.JUNCTION_PUBLIC_URL,
    logLevel: values.LOG_LEVEL,
  };
}
