import { z } from 'zod';
import { DEFAULT_USD_RATES, parseRatesEnv } from '../credits/currency-rates.ts';
import { type CorsOrigins, parseCorsOrigins } from './cors-origins.ts';
import { EnvConfigError } from './env-config-error.ts';
import { PublicUrlSchema, type TrustProxy, TrustProxySchema } from './proxy-env.ts';
import { readStorageEnv } from './storage-env.ts';

/** `true` or `false`; unset is false. */
const FlagSchema = z.enum(['true', 'false'], { error: 'expected true or false' }).optional();

/**
 * Everything the service reads from the environment, validated once at start-up, with the
 * description docs/configuration.md is generated from (`npm run docs`). A few are parsed by
 * the module that uses them (named in the description's module comment below), but each is
 * declared and checked here, so the reference lists every variable.
 */
export const EnvSchema = z.object({
  HOST: z.string().default('127.0.0.1').describe('The address the server listens on.'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe('The port the server listens on (0: any free port).'),
  // Read apart from the rest, before zod loads (storage-env.ts).
  DATABASE_URL: z.string().optional().describe('PostgreSQL (15+, with pgvector) to use instead of the embedded store.'),
  JUNCTION_DATA_DIR: z.string().optional().describe("The embedded store's folder (default `./.junction`); `memory://` keeps it in memory."),
  JUNCTION_PGLITE_SHARED_BUFFERS: z.string().optional().describe("The embedded engine's buffer pool, `8MB` to `1GB`; unset, 16MB or more for a store with large vector indexes."),
  JUNCTION_PGLITE_PAGE_CACHE: z
    .string()
    .optional()
    .describe("The most the embedded store's page cache may hold (default `256MB`, none beside a pool enlarged for vector indexes), up to `8GB`; `0` turns it off."),
  REDIS_URL: z
    .string()
    .min(1)
    .optional()
    .describe('Redis for the rate windows of keys and deployments that every process shares (faster; without it they are in PostgreSQL, or in memory on the one-process embedded store).'),
  JUNCTION_CONFIG: z.string().min(1).optional().describe('The config file (default `./junction.yaml` when present): models, aliases, plans, providers, currencies.'),
  JUNCTION_KEY_SECRET: z.string().min(1).optional().describe('HMAC key for API-key hashes (a built-in value when unset); changing it invalidates every key.'),
  JUNCTION_FX_RATES: z.string().optional().describe('USD value of credit currencies, `EUR=1.08,GBP=1.27`; wins over the config file.'),
  // Parsed by src/providers/provider-registry.ts.
  OPENAI_API_KEY: z.string().optional().describe('Enables the `openai` provider.'),
  OPENAI_BASE_URL: z.url().optional().describe("The `openai` provider's API root (default `https://api.openai.com/v1`)."),
  ANTHROPIC_API_KEY: z.string().optional().describe('Enables the `anthropic` provider.'),
  ANTHROPIC_BASE_URL: z.url().optional().describe("The `anthropic` provider's API root (default `https://api.anthropic.com/v1`)."),
  GEMINI_API_KEY: z.string().optional().describe('Enables the `google` provider (Gemini).'),
  GEMINI_BASE_URL: z.url().optional().describe("The `google` provider's API root (default `https://generativelanguage.googleapis.com/v1beta`)."),
  // Parsed by src/catalog/configured-providers.ts (src/providers/provider-presets.ts names the presets).
  AZURE_OPENAI_ENDPOINT: z.url().optional().describe('Enables the `azure` provider (Azure OpenAI): the resource root, `https://<resource>.openai.azure.com`.'),
  AZURE_OPENAI_API_KEY: z.string().optional().describe("The `azure` provider's key, sent as `api-key`."),
  AZURE_OPENAI_AD_TOKEN: z.string().optional().describe('A Microsoft Entra token for the `azure` provider, sent as a bearer instead of `api-key`.'),
  AZURE_OPENAI_API_VERSION: z.string().min(1).optional().describe("The `azure` provider's `api-version` (default `2024-10-21`)."),
  GROQ_API_KEY: z.string().optional().describe('Enables the `groq` preset (`https://api.groq.com/openai/v1`).'),
  GROQ_BASE_URL: z.url().optional().describe("The `groq` preset's API root, when it must differ from the preset's."),
  TOGETHER_API_KEY: z.string().optional().describe('Enables the `together` preset (`https://api.together.xyz/v1`).'),
  TOGETHER_BASE_URL: z.url().optional().describe("The `together` preset's API root, when it must differ from the preset's."),
  FIREWORKS_API_KEY: z.string().optional().describe('Enables the `fireworks` preset (`https://api.fireworks.ai/inference/v1`).'),
  FIREWORKS_BASE_URL: z.url().optional().describe("The `fireworks` preset's API root, when it must differ from the preset's."),
  DEEPSEEK_API_KEY: z.string().optional().describe('Enables the `deepseek` preset (`https://api.deepseek.com/v1`).'),
  DEEPSEEK_BASE_URL: z.url().optional().describe("The `deepseek` preset's API root, when it must differ from the preset's."),
  XAI_API_KEY: z.string().optional().describe('Enables the `xai` preset (`https://api.x.ai/v1`).'),
  XAI_BASE_URL: z.url().optional().describe("The `xai` preset's API root, when it must differ from the preset's."),
  OPENROUTER_API_KEY: z.string().optional().describe('Enables the `openrouter` preset (`https://openrouter.ai/api/v1`).'),
  OPENROUTER_BASE_URL: z.url().optional().describe("The `openrouter` preset's API root, when it must differ from the preset's."),
  OLLAMA_BASE_URL: z.url().optional().describe("The `ollama` preset's API root (default `http://127.0.0.1:11434/v1`); the preset is on once the config file names it."),
  VLLM_BASE_URL: z.url().optional().describe("The `vllm` preset's API root (default `http://127.0.0.1:8000/v1`); the preset is on once the config file names it."),
  LMSTUDIO_BASE_URL: z.url().optional().describe("The `lmstudio` preset's API root (default `http://127.0.0.1:1234/v1`); the preset is on once the config file names it."),
  // Parsed by src/providers/vertex/vertex-env.ts for deployments with `provider: vertex`.
  GOOGLE_APPLICATION_CREDENTIALS: z
    .string()
    .optional()
    .describe("A Google Cloud service-account key file: the `vertex` deployments' credentials unless a deployment's `api_key_env` names a variable holding the key's JSON."),
  VERTEX_PROJECT: z.string().min(1).optional().describe("The Google Cloud project of `vertex` deployments (else `GOOGLE_CLOUD_PROJECT`, else the key's `project_id`)."),
  GOOGLE_CLOUD_PROJECT: z.string().min(1).optional().describe('The Google Cloud project of `vertex` deployments when `VERTEX_PROJECT` is unset.'),
  VERTEX_LOCATION: z.string().min(1).optional().describe('The Vertex AI location of `vertex` deployments without a `region` (else `GOOGLE_CLOUD_LOCATION`, else `global`).'),
  GOOGLE_CLOUD_LOCATION: z.string().min(1).optional().describe('The Vertex AI location when `VERTEX_LOCATION` is unset.'),
  VERTEX_BASE_URL: z
    .url()
    .optional()
    .describe('The Vertex AI endpoint of `vertex` deployments without a `base_url` (default `https://<location>-aiplatform.googleapis.com`, `https://aiplatform.googleapis.com` for `global`).'),
  // Parsed by src/providers/bedrock/bedrock-env.ts for the `bedrock` provider and deployments with `provider: bedrock`.
  AWS_BEARER_TOKEN_BEDROCK: z
    .string()
    .optional()
    .describe('A Bedrock API key: enables the `bedrock` provider and is sent as the bearer of its calls (else they are SigV4-signed with the AWS credentials).'),
  AWS_ACCESS_KEY_ID: z.string().optional().describe('AWS access key that signs `bedrock` calls (SigV4) without an API key.'),
  AWS_SECRET_ACCESS_KEY: z.string().optional().describe('The secret of `AWS_ACCESS_KEY_ID`.'),
  AWS_SESSION_TOKEN: z.string().optional().describe('The session token of temporary AWS credentials, sent with `bedrock` calls.'),
  BEDROCK_REGION: z.string().min(1).optional().describe('The region of `bedrock` calls; with AWS credentials it enables the `bedrock` provider (they alone do not).'),
  AWS_REGION: z.string().min(1).optional().describe('The region of `bedrock` calls when `BEDROCK_REGION` and the deployment name none (else `AWS_DEFAULT_REGION`, else `us-east-1`).'),
  AWS_DEFAULT_REGION: z.string().min(1).optional().describe('The region of `bedrock` calls when `AWS_REGION` is unset.'),
  BEDROCK_BASE_URL: z.url().optional().describe('The Bedrock runtime endpoint of `bedrock` calls without a `base_url` (default `https://bedrock-runtime.<region>.amazonaws.com`).'),
  // Parsed by src/catalog/configured-providers.ts through src/providers/native-providers.ts.
  COHERE_API_KEY: z.string().optional().describe('Enables the `cohere` provider (its v2 Chat and Embed APIs) and deployments with `provider: cohere`.'),
  COHERE_BASE_URL: z.url().optional().describe("The `cohere` provider's origin (default `https://api.cohere.com`; the adapter adds `/v2/chat` and `/v2/embed`)."),
  MISTRAL_API_KEY: z.string().optional().describe('Enables the `mistral` provider and deployments with `provider: mistral`.'),
  MISTRAL_BASE_URL: z.url().optional().describe("The `mistral` provider's API root (default `https://api.mistral.ai/v1`)."),
  JUNCTION_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().optional().describe("Per-attempt wait for an upstream's response headers (default 60000)."),
  JUNCTION_AGENTS_DIR: z.string().default('./agents').describe('Agent files (watched).'),
  JUNCTION_TOOLS_DIR: z.string().default('./tools').describe('Tool files (watched).'),
  JUNCTION_KNOWLEDGE_DIR: z.string().default('./knowledge').describe('Knowledge collections, one folder each (watched).'),
  JUNCTION_EMBEDDING_MODEL: z.string().min(1).optional().describe('Catalog id of the embedding model for knowledge (`openai/text-embedding-3-small`); without it knowledge search is full text only.'),
  // Parsed by src/tools/builtin/http-fetch-policy.ts and src/agents/mcp/tenant-mcp-policy.ts.
  JUNCTION_HTTP_FETCH_ALLOWLIST: z.string().optional().describe('Hosts (`example.com`, `*.example.com`) or URL prefixes the `http_fetch` tool may GET, comma-separated.'),
  JUNCTION_HTTP_FETCH_ALLOW_PRIVATE: FlagSchema.describe('Lets `http_fetch` reach private and loopback addresses.'),
  JUNCTION_MCP_ALLOWLIST: z.string().optional().describe('Hosts (or host:port) that MCP servers of console agents and requests may be on, comma-separated.'),
  JUNCTION_MCP_ALLOW_PRIVATE: FlagSchema.describe('Lets MCP servers of console agents and requests be on private and loopback addresses.'),
  JUNCTION_LEASE_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(3)
    .max(3600)
    .default(30)
    .describe('A process silent this long is presumed dead: its budget leases return and its open calls are billed as `interrupted`.'),
  // Parsed in src/assembly/services.ts.
  JUNCTION_RUN_LEASE_SECONDS: z.coerce.number().positive().optional().describe("How long a background run's lease lasts before another process may take the run over (default 30)."),
  // Parsed by src/pipeline/response-cache.ts.
  JUNCTION_CACHE_HIT_PRICE_FRACTION: z.coerce.number().min(0).max(1).optional().describe("What a response-cache hit costs, as a fraction of the cached answer's price (default 0: hits are free)."),
  JUNCTION_SEMANTIC_CACHE_MODEL: z
    .string()
    .min(1)
    .optional()
    .describe('Catalog id of the embedding model that lets requests with `"cache": {"semantic": true}` match similar earlier prompts; unset, the response cache matches exactly only.'),
  JUNCTION_SEMANTIC_CACHE_THRESHOLD: z.coerce.number().min(0).max(1).optional().describe('The cosine similarity at or above which a semantic-cache lookup is a hit (default 0.95).'),
  JUNCTION_AGENT_KEY: z.string().optional().describe('The agent key `npx junction eval run --url` starts evaluations with on that server (read from the environment, never the command line).'),
  // Parsed in src/runs/run-retention.ts.
  JUNCTION_RUN_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_650)
    .optional()
    .describe("How many days the steps of agent runs (the console's run pages) and finished runs with their streamed events are kept (default 30)."),
  // Parsed in src/conversations/conversation-retention.ts.
  JUNCTION_CONVERSATION_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(36_500)
    .optional()
    .describe('How many days a conversation is kept after its last turn, with its messages and stored responses (unset: kept for ever).'),
  // Parsed in src/billing/usage-partitions.ts.
  JUNCTION_USAGE_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(36_500)
    .optional()
    .describe("How many days usage-log rows are kept at least: whole months older than that are dropped, the Overview's daily totals kept (unset: kept for ever)."),
  JUNCTION_JOURNAL_DIR: z.string().min(1).optional().describe('Where settlements waiting for the database are kept on disk (default `<JUNCTION_DATA_DIR>/journal`).'),
  JUNCTION_EMBEDDED_SETTLEMENT_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(60_000)
    .default(100)
    .describe('On the embedded store in a folder: how often settled calls are written to the store (they are in its file journal within 10 ms either way).'),
  JUNCTION_METRICS_TOKEN: z.string().min(16, 'use at least 16 characters').optional().describe('Bearer token for `GET /metrics`; without it, loopback clients only.'),
  JUNCTION_STREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(60_000).describe('A stream whose client reads nothing this long is cut and billed as `client_closed`.'),
  JUNCTION_CORS_ORIGINS: z.string().optional().describe('Origins whose pages may call `/v1`, `/v1beta` and `/agents/v1` from a browser, comma-separated, or `*`.'),
  JUNCTION_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(20_000).describe('After SIGTERM, requests still open this long are cut and billed for what they produced.'),
  JUNCTION_DRAIN_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(300_000)
    .default(0)
    .describe(
      'After SIGTERM, how long `/readyz` answers 503 "draining" while new requests are still served, before the listener closes: a load balancer\'s probe interval times its failure threshold.',
    ),
  JUNCTION_TRUST_PROXY: TrustProxySchema.describe('Which peers may set the scheme, host and client address (`X-Forwarded-*`): `false`, `true`, a hop count, or addresses and CIDR ranges.'),
  JUNCTION_PUBLIC_URL: PublicUrlSchema.describe('The origin browsers use (`https://junction.example`): CSRF checks, links the server hands out, `Secure` cookies.'),
  // Parsed by src/ops/workers.ts and src/main.ts.
  JUNCTION_WORKERS: z.string().optional().describe('Processes serving the port (`auto`: one per core); more than one needs `DATABASE_URL`.'),
  JUNCTION_WORKER_INDEX: z.string().optional().describe('Set by the `--workers` primary for each worker; not for operators.'),
  // Parsed in src/assembly/services.ts.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional().describe('OTLP/HTTP endpoint for traces; without it tracing is off.'),
  OTEL_SERVICE_NAME: z.string().optional().describe('The service name on traces (default `junction`).'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Log level; keys, cookies and key-bearing query parameters are always redacted.'),
  // Parsed by src/http/logger-options.ts.
  JUNCTION_LOG_FORMAT: z.enum(['json', 'pretty']).optional().describe('Log lines as JSON or readable text (default: readable on a terminal, JSON otherwise).'),
  // Read by glibc when the process starts; `npm start` sets them (src/ops/allocator-env.ts).
  MALLOC_MMAP_THRESHOLD_: z.string().optional().describe("glibc's mmap threshold; `npm start` sets 131072 unless given."),
  MALLOC_TRIM_THRESHOLD_: z.string().optional().describe("glibc's trim threshold; `npm start` sets 4194304 unless given."),
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
  /** HMAC key for API-key hashes. A built-in value when unset (docs/security.md). */
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
  drainDelayMs: number;
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
    drainDelayMs: values.JUNCTION_DRAIN_DELAY_MS,
    trustProxy: values.JUNCTION_TRUST_PROXY,
    publicUrl: values.JUNCTION_PUBLIC_URL,
    logLevel: values.LOG_LEVEL,
  };
}
