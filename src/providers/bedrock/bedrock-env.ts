/**
 * Amazon Bedrock's settings from the operator's environment, never from tenant input: the
 * region (the deployment's `region`, the region of its `base_url`, BEDROCK_REGION, AWS_REGION,
 * AWS_DEFAULT_REGION, else us-east-1), and either a Bedrock API key (the variable the
 * deployment's `api_key_env` names, else AWS_BEARER_TOKEN_BEDROCK) or the AWS credentials
 * that sign (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and, for temporary ones, AWS_SESSION_TOKEN).
 */
import type { ProviderConfig } from '../adapter.ts';
import { type AwsCredentials, regionOfBedrockUrl } from './bedrock-auth.ts';

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_BEDROCK_REGION = 'us-east-1';
/** The variable the AWS SDKs read a Bedrock API key from. */
export const BEDROCK_API_KEY_ENV = 'AWS_BEARER_TOKEN_BEDROCK';

export const bedrockRuntimeUrl = (region: string): string => `https://bedrock-runtime.${region}.amazonaws.com`;

/** What a deployment may set: its key variable, its region and its endpoint. */
export type BedrockDeploymentFields = { keyEnv?: string | undefined; region?: string | undefined; baseUrl?: string | undefined };

/** The adapter config of the `bedrock` provider or of one deployment on it, or why it cannot be used. */
export function bedrockProviderConfig(id: string, fields: BedrockDeploymentFields, env: Env): ProviderConfig | string {
  const region =
    fields.region ?? (fields.baseUrl === undefined ? undefined : regionOfBedrockUrl(fields.baseUrl)) ?? env.BEDROCK_REGION ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? DEFAULT_BEDROCK_REGION;
  const baseUrl = (fields.baseUrl ?? env.BEDROCK_BASE_URL ?? bedrockRuntimeUrl(region)).replace(/\/+$/, '');
  const common = {
    id,
    kind: 'bedrock' as const,
    baseUrl,
    ...(env.JUNCTION_UPSTREAM_TIMEOUT_MS && { timeoutMs: Number(env.JUNCTION_UPSTREAM_TIMEOUT_MS) }),
  };
  if (fields.keyEnv !== undefined) {
    // A deployment that names its key uses that key alone: falling back to other credentials would bill another account.
    const apiKey = env[fields.keyEnv];
    return apiKey ? { ...common, apiKey, bedrock: { region } } : `environment variable ${fields.keyEnv} is not set`;
  }
  const apiKey = env[BEDROCK_API_KEY_ENV];
  if (apiKey) return { ...common, apiKey, bedrock: { region } };
  const credentials = awsCredentials(env);
  if (!credentials) return `neither ${BEDROCK_API_KEY_ENV} nor AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set`;
  return { ...common, bedrock: { region, credentials } };
}

/**
 * Whether the `bedrock` provider (Bedrock's models in the catalog) is on by itself: a Bedrock
 * API key, or AWS credentials with BEDROCK_REGION. AWS credentials alone are often there for
 * other services, and must not open Bedrock to every key.
 */
export const bedrockConfiguredInEnv = (env: Env): boolean => Boolean(env[BEDROCK_API_KEY_ENV] || (env.BEDROCK_REGION && awsCredentials(env)));

function awsCredentials(env: Env): AwsCredentials | undefined {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) return undefined;
  return { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}
