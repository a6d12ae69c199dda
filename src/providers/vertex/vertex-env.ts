/**
 * A Vertex AI deployment's settings from the operator's environment: the service account
 * (a JSON key in the variable the deployment names, else the file GOOGLE_APPLICATION_CREDENTIALS
 * points at), the project and the location. Never from tenant input.
 */
import { readFileSync } from 'node:fs';
import type { ProviderConfig } from '../adapter.ts';
import { parseServiceAccountKey, type ServiceAccountKey } from './service-account.ts';
import { vertexBaseUrl } from './vertex-call.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Where Vertex serves when neither the deployment nor the environment names a location. */
export const DEFAULT_VERTEX_LOCATION = 'global';

/** What a deployment may set: its key variable, its region (Vertex's location) and its endpoint. */
export type VertexDeploymentFields = { keyEnv?: string | undefined; region?: string | undefined; baseUrl?: string | undefined };

/** The adapter config of a Vertex deployment, or why it cannot be used. */
export function vertexProviderConfig(id: string, fields: VertexDeploymentFields, env: Env): ProviderConfig | string {
  const key = fields.keyEnv === undefined ? keyFromFile(env) : keyFromVariable(fields.keyEnv, env);
  if (typeof key === 'string') return key;
  // A deployment with a key of its own is that key's project; the shared key defers to the environment.
  const project = fields.keyEnv === undefined ? (env.VERTEX_PROJECT ?? env.GOOGLE_CLOUD_PROJECT ?? key.projectId) : (key.projectId ?? env.VERTEX_PROJECT ?? env.GOOGLE_CLOUD_PROJECT);
  if (!project) return 'no project: set VERTEX_PROJECT, or use a key with project_id';
  const location = fields.region ?? env.VERTEX_LOCATION ?? env.GOOGLE_CLOUD_LOCATION ?? DEFAULT_VERTEX_LOCATION;
  const baseUrl = (fields.baseUrl ?? env.VERTEX_BASE_URL ?? vertexBaseUrl(location)).replace(/\/+$/, '');
  return {
    id,
    kind: 'gemini',
    baseUrl,
    ...(env.JUNCTION_UPSTREAM_TIMEOUT_MS && { timeoutMs: Number(env.JUNCTION_UPSTREAM_TIMEOUT_MS) }),
    vertex: { project, location, key },
  };
}

function keyFromVariable(name: string, env: Env): ServiceAccountKey | string {
  const text = env[name];
  if (!text) return `environment variable ${name} is not set`;
  const key = parseServiceAccountKey(text);
  return typeof key === 'string' ? `environment variable ${name} ${key}` : key;
}

function keyFromFile(env: Env): ServiceAccountKey | string {
  const path = env.GOOGLE_APPLICATION_CREDENTIALS;
  if (!path) return 'environment variable GOOGLE_APPLICATION_CREDENTIALS is not set (or give the deployment api_key_env)';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
    return `GOOGLE_APPLICATION_CREDENTIALS could not be read${typeof code === 'string' ? ` (${code})` : ''}`;
  }
  const key = parseServiceAccountKey(text);
  return typeof key === 'string' ? `the file GOOGLE_APPLICATION_CREDENTIALS names ${key}` : key;
}
