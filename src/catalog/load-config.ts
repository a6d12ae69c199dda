/**
 * Reads the catalog config file and turns its `providers:` section into the
 * ProviderConfig the app builds adapters from. Errors name the file and the path.
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import type { ProviderConfig } from '../providers/adapter.ts';
import { CatalogConfigError, formatConfigPath } from './config-error.ts';
import { CatalogConfigSchema, emptyCatalogConfig, type CatalogConfig } from './config-schema.ts';

/** Env var naming the config file; without it `./junction.yaml` is used when present. */
export const CATALOG_FILE_ENV = 'JUNCTION_CONFIG';
export const DEFAULT_CATALOG_FILE = 'junction.yaml';

/**
 * Loads and validates the catalog config. An explicit path (argument or
 * JUNCTION_CONFIG) must exist; the default file is optional, so a bare
 * checkout runs with the published catalog and no aliases or plans.
 */
export const loadCatalogConfig = async (path?: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<CatalogConfig> => {
  const explicit = path ?? env[CATALOG_FILE_ENV];
  const file = explicit ?? DEFAULT_CATALOG_FILE;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (explicit === undefined && isMissingFile(error)) return emptyCatalogConfig();
    throw new CatalogConfigError(file, [{ path: '(file)', message: error instanceof Error ? error.message : String(error) }]);
  }
  return parseCatalogConfigYaml(text, file);
};

/** YAML text → validated config; `source` is only used in error messages. */
export const parseCatalogConfigYaml = (text: string, source: string): CatalogConfig => {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new CatalogConfigError(
      source,
      document.errors.map((error) => ({ path: yamlPosition(error.linePos?.[0]), message: error.message.split('\n')[0] ?? error.message })),
    );
  }
  return parseCatalogConfig(document.toJS() ?? {}, source);
};

/** Already-parsed data (e.g. a test's object literal in YAML's snake_case) → validated config. */
export const parseCatalogConfig = (raw: unknown, source = '<inline>'): CatalogConfig => {
  const result = CatalogConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  throw new CatalogConfigError(
    source,
    result.error.issues.map((issue) => ({ path: formatConfigPath(issue.path), message: issue.message })),
  );
};

export type ConfiguredProviders = {
  providers: ProviderConfig[];
  /** Providers left out, e.g. because their `api_key_env` variable is unset. */
  skipped: Array<{ id: string; reason: string }>;
};

/**
 * The config file's openai-compatible providers as adapter configs. A provider that
 * names an `api_key_env` that is not set is skipped (and so contributes no models),
 * the same rule as OPENAI_API_KEY for the built-in providers.
 */
export const providerConfigsFromCatalogConfig = (config: CatalogConfig, env: Readonly<Record<string, string | undefined>> = process.env): ConfiguredProviders => {
  const result: ConfiguredProviders = { providers: [], skipped: [] };
  for (const [id, provider] of Object.entries(config.providers)) {
    const apiKey = provider.apiKeyEnv === undefined ? undefined : env[provider.apiKeyEnv];
    if (provider.apiKeyEnv !== undefined && !apiKey) {
      result.skipped.push({ id, reason: `environment variable ${provider.apiKeyEnv} is not set` });
      continue;
    }
    result.providers.push({
      id,
      kind: provider.kind,
      baseUrl: provider.baseUrl.replace(/\/+$/, ''),
      ...(apiKey ? { apiKey } : {}),
      ...(provider.headers ? { headers: provider.headers } : {}),
      ...(provider.query ? { query: provider.query } : {}),
      ...(provider.timeoutMs ? { timeoutMs: provider.timeoutMs } : {}),
    });
  }
  return result;
};

const isMissingFile = (error: unknown): boolean => typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';

const yamlPosition = (position: { line: number; col: number } | undefined): string => (position ? `line ${position.line}, column ${position.col}` : '(yaml)');
