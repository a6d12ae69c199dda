/**
 * Reads the catalog config file and turns its `providers:` section into the
 * ProviderConfig the app builds adapters from (configured-providers.ts). Errors name the file and the path.
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { CatalogConfigError, formatConfigPath } from './config-error.ts';
import { CatalogConfigSchema, emptyCatalogConfig, type CatalogConfig } from './config-schema.ts';
import { configuredProviders, type ConfiguredProviders } from './configured-providers.ts';

export type { ConfiguredProviders } from './configured-providers.ts';

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

/**
 * The config file's providers (and the presets and Azure the environment turns on) as
 * adapter configs, plus one per model deployment. A provider whose key variable is unset
 * is skipped (and so contributes no models), the same rule as OPENAI_API_KEY.
 */
export const providerConfigsFromCatalogConfig = (config: CatalogConfig, env: Readonly<Record<string, string | undefined>> = process.env): ConfiguredProviders => configuredProviders(config, env);

const isMissingFile = (error: unknown): boolean => typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';

const yamlPosition = (position: { line: number; col: number } | undefined): string => (position ? `line ${position.line}, column ${position.col}` : '(yaml)');
