/**
 * A model's `deployments:` and `routing:` in junction.yaml: the same model served by several
 * providers, accounts or regions, and how calls are spread over them. Fields a deployment
 * leaves unset fall back to its provider's defaults (base URL, key, the model's upstream name).
 */
import { z } from 'zod';
import type { TimeoutSettings } from './types.ts';

export const ROUTING_STRATEGIES = ['weighted', 'ordered', 'least_busy', 'lowest_latency'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Node's timers hold at most 2^31 - 1 ms; a longer one fires at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** `timeout_ms` and `stream_idle_timeout_ms`, the same on a model entry and on each of its deployments. */
export const TimeoutFieldsSchema = {
  timeout_ms: z
    .number()
    .int()
    .positive()
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(
      "Per attempt, the wait for the answer (its headers and, for a stream, its first event) before the next deployment or retry; a deployment's wins over its model's, a model's over its provider's `timeout_ms`.",
    ),
  stream_idle_timeout_ms: z
    .number()
    .int()
    .positive()
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe('The longest a started answer may stay silent; a stream then ends with an `upstream_timeout` error event and what streamed is billed. 300 s when unset.'),
};

/** The time limits a model entry or a deployment sets, undefined when it sets none. */
export function timeoutSettings(fields: { timeout_ms?: number | undefined; stream_idle_timeout_ms?: number | undefined }): TimeoutSettings | undefined {
  if (fields.timeout_ms === undefined && fields.stream_idle_timeout_ms === undefined) return undefined;
  return { firstByteMs: fields.timeout_ms, streamIdleMs: fields.stream_idle_timeout_ms };
}

export const DeploymentSchema = z
  .strictObject({
    provider: z
      .string()
      .min(1)
      .describe('The provider id serving this deployment: `openai`, `anthropic`, `google`, `azure`, `vertex`, `bedrock`, `cohere`, `mistral`, a preset (`groq`, `ollama`…) or a `providers:` id.'),
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_.-]*$/, 'deployment names are lowercase letters, digits, ".", "-" and "_"')
      .optional()
      .describe('The label in `x-junction-provider`, usage rows and metrics; the provider id when unset (with `-2`, `-3`… when a provider repeats).'),
    model: z.string().min(1).optional().describe("The model name sent to this deployment (Azure's deployment name); the model's upstream name when unset."),
    base_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe("This deployment's API root; the provider's when unset."),
    api_key_env: z.string().regex(ENV_NAME).optional().describe("The environment variable holding this deployment's key; the provider's when unset. The deployment is skipped while it is unset."),
    region: z
      .string()
      .regex(/^[a-z0-9-]+$/, 'regions are lowercase letters, digits and "-"')
      .optional()
      .describe("The cloud region serving this deployment (Vertex AI's location, e.g. `us-east5`; Bedrock's region, e.g. `eu-west-1`); the provider's when unset."),
    weight: z.number().positive().default(1).describe('Share of the calls among the deployments of the same priority (`weighted` strategy).'),
    priority: z.number().int().nonnegative().default(0).describe('Lower priorities are tried first; the next priority takes over on a retryable failure.'),
    rpm: z.number().int().positive().optional().describe("Requests per minute this deployment's provider account allows; a full minute sends calls to the next deployment."),
    tpm: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Tokens per minute this deployment's provider account allows, counted as each call's input estimate plus its output cap, corrected by the tokens used."),
    ...TimeoutFieldsSchema,
  })
  .transform((deployment) => ({
    provider: deployment.provider,
    name: deployment.name,
    model: deployment.model,
    baseUrl: deployment.base_url,
    apiKeyEnv: deployment.api_key_env,
    region: deployment.region,
    weight: deployment.weight,
    priority: deployment.priority,
    rpm: deployment.rpm,
    tpm: deployment.tpm,
    timeouts: timeoutSettings(deployment),
  }));
export type DeploymentConfig = z.output<typeof DeploymentSchema>;

export const RoutingSchema = z
  .strictObject({
    strategy: z.enum(ROUTING_STRATEGIES).default('weighted').describe('How a deployment is chosen among those of the best priority.'),
    failure_threshold: z.number().int().positive().default(5).describe("Consecutive failures that open a deployment's circuit breaker."),
    error_rate: z.number().gt(0).max(1).default(0.5).describe('Share of failures over the last `window` calls that opens the breaker too.'),
    window: z.number().int().min(2).default(20).describe('Calls the error rate is measured over (the breaker waits for half of them).'),
    cooldown_seconds: z.number().positive().default(30).describe('How long an open breaker keeps a deployment out before one probe call is let through.'),
  })
  .transform((routing) => ({
    strategy: routing.strategy,
    failureThreshold: routing.failure_threshold,
    errorRate: routing.error_rate,
    window: routing.window,
    cooldownMs: Math.round(routing.cooldown_seconds * 1000),
  }));
export type RoutingSettings = z.output<typeof RoutingSchema>;

export const DEFAULT_ROUTING: RoutingSettings = { strategy: 'weighted', failureThreshold: 5, errorRate: 0.5, window: 20, cooldownMs: 30_000 };

/**
 * Each deployment's label: its name, else its provider id, numbered from the second time a
 * provider repeats (`openai`, `openai-2`), so labels are unique within a model.
 */
export function deploymentLabels(deployments: readonly DeploymentConfig[]): string[] {
  const seen = new Map<string, number>();
  return deployments.map((deployment) => {
    if (deployment.name) return deployment.name;
    const count = (seen.get(deployment.provider) ?? 0) + 1;
    seen.set(deployment.provider, count);
    return count === 1 ? deployment.provider : `${deployment.provider}-${count}`;
  });
}

/** The provider registry's key of a deployment's own adapter. */
export const deploymentAdapterKey = (modelId: string, label: string): string => `${modelId}@${label}`;
