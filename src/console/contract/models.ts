import { z } from 'zod';

/** A catalog model as the console shows it (the `/v1/models` entry, loosely typed where it is open-ended). */
export const ConsoleModelSchema = z
  .object({
    id: z.string(),
    name: z.string().optional(),
    context_length: z.number().nullable().optional(),
    capabilities: z.array(z.string()).optional(),
    pricing: z.record(z.string(), z.unknown()).optional(),
    media_params_schema: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .loose();
export type ConsoleModel = z.infer<typeof ConsoleModelSchema>;
export const ModelListSchema = z.object({ data: z.array(ConsoleModelSchema) });

/** One deployment of a model as this server process sees it: configuration, breaker, park, load and its minute's quota. */
export const ConsoleDeploymentSchema = z.object({
  label: z.string(),
  provider: z.string(),
  region: z.string().nullable(),
  weight: z.number(),
  priority: z.number(),
  breaker: z.enum(['closed', 'half_open', 'open']),
  /** Seconds an open breaker still keeps the deployment out before a probe. */
  open_for_seconds: z.number().nullable(),
  parked_until: z.string().nullable(),
  error_rate: z.number(),
  latency_ms: z.number().nullable(),
  in_flight: z.number(),
  rpm: z.number().nullable(),
  tpm: z.number().nullable(),
  requests_last_minute: z.number().nullable(),
  tokens_last_minute: z.number().nullable(),
});
export type ConsoleDeployment = z.infer<typeof ConsoleDeploymentSchema>;
export const ModelDeploymentsSchema = z.object({ data: z.array(z.object({ model: z.string(), deployments: z.array(ConsoleDeploymentSchema) })) });
export type ModelDeployments = z.infer<typeof ModelDeploymentsSchema>;
