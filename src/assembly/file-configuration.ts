import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/agent-registry.ts';
import { buildCatalog } from '../catalog/build-catalog.ts';
import type { CatalogConfig } from '../catalog/config-schema.ts';
import { loadCatalogConfig, providerConfigsFromCatalogConfig } from '../catalog/load-config.ts';
import { resolveModel } from '../catalog/lookup.ts';
import type { Catalog } from '../catalog/types.ts';
import type { EnvConfig } from '../config/env-config.ts';
import { buildProviderRegistry, providersFromEnv, type ProviderRegistry } from '../providers/provider-registry.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';

/**
 * What a start reads from files and the environment, none of it from the store: the
 * catalog and its providers, then the tools and agents folders (watched). createServices
 * starts this before it waits for the store, so on the embedded engine, whose opening
 * takes about a second on its own thread, the two overlap.
 */
export type FileConfiguration = {
  catalogConfig: CatalogConfig;
  catalog: Catalog;
  providers: ProviderRegistry;
  /** The catalog's own warnings, then the config file's providers left out and why. */
  warnings: string[];
  /** Both absent when agents are not loaded (the CLI). */
  tools: ToolRegistry | undefined;
  agents: AgentRegistry | undefined;
  /** Stops the folder watchers. */
  close(): void;
};

export type FileConfigurationOptions = {
  config: EnvConfig;
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
  loadAgents: boolean;
  logger: Logger;
  onConfigError: (error: Error) => void;
};

type AgentConfigErrorLike = Error & { file: string; issues: Array<{ path: string; message: string }> };

/** An agent file refused only because its models are not in the catalog (no provider configured for them). */
function onlyUnknownModels(error: Error): boolean {
  const issues = (error as Partial<AgentConfigErrorLike>).issues;
  return Array.isArray(issues) && issues.length > 0 && issues.every((issue) => /^(model|fallback_models\[\d+\])$/.test(issue.path) && issue.message.startsWith('unknown model'));
}

export async function loadFileConfiguration(options: FileConfigurationOptions): Promise<FileConfiguration> {
  const { config, env, logger, onConfigError } = options;
  // Tool files load (TypeScript ones compiled by esbuild's process) while the catalog is read.
  const toolsLoading = options.loadAgents ? loadTools(config.toolsDir, onConfigError) : undefined;
  toolsLoading?.catch(() => undefined); // awaited below, or closed on a failure
  let tools: ToolRegistry | undefined;
  try {
    const catalogConfig = await loadCatalogConfig(config.configPath, env);
    const extraProviders = providerConfigsFromCatalogConfig(catalogConfig, env);
    const providerConfigs = [...providersFromEnv(env), ...extraProviders.providers];
    const catalog = buildCatalog({ providers: providerConfigs.map(({ id, kind }) => ({ id, kind })), config: catalogConfig, now: options.now() });
    // Deployment adapters serve models but are no catalog providers: the registry alone holds them.
    const providers = buildProviderRegistry([...providerConfigs, ...extraProviders.deployments]);
    tools = await toolsLoading;
    const agents = tools ? await loadAgents(config, tools, catalog, providerConfigs.length === 0, logger, onConfigError) : undefined;
    const loadedTools = tools;
    return {
      catalogConfig,
      catalog,
      providers,
      warnings: [...catalog.warnings, ...extraProviders.skipped.map((skip) => `provider ${skip.id} skipped: ${skip.reason}`)],
      tools,
      agents,
      close() {
        agents?.close();
        loadedTools?.close();
      },
    };
  } catch (error) {
    (tools ?? (await toolsLoading?.catch(() => undefined)))?.close();
    throw error;
  }
}

/** The built-in tools and the tools folder, watched; imported here so the CLI never loads them. */
async function loadTools(toolsDir: string, onError: (error: Error) => void): Promise<ToolRegistry> {
  const [{ createToolRegistry }, { createBuiltinTools }] = await Promise.all([import('../tools/tool-registry.ts'), import('../tools/builtin/builtin-tools.ts')]);
  return createToolRegistry({ toolsDir, builtins: createBuiltinTools(), watch: true, onError });
}

/**
 * The agents folder, watched. Without any provider credentials, agents whose only problem
 * is a model outside the (empty) catalog are expected on a first start: one warning lists
 * them, not ERROR lines.
 */
async function loadAgents(config: EnvConfig, tools: ToolRegistry, catalog: Catalog, noProviders: boolean, logger: Logger, onConfigError: (error: Error) => void): Promise<AgentRegistry> {
  const unconfigured: AgentConfigErrorLike[] = [];
  let starting = noProviders;
  const onError = (error: Error) => {
    if (starting && onlyUnknownModels(error)) unconfigured.push(error as AgentConfigErrorLike);
    else onConfigError(error);
  };
  // Imported here so short-lived tools (the CLI) do not load the agent libraries.
  const { createAgentRegistry } = await import('../agents/agent-registry.ts');
  const agents = await createAgentRegistry({
    agentsDir: config.agentsDir,
    knowledgeDir: config.knowledgeDir,
    tools,
    isKnownModel: (id) => resolveModel(catalog, id) !== undefined,
    watch: true,
    onError,
    onWarning: (file, warnings) =>
      logger.warn({ file: file.split(/[\\/]/).pop(), warnings: warnings.map((warning) => `${warning.path}: ${warning.message}`) }, 'an agent loaded without part of its file'),
  });
  starting = false;
  if (unconfigured.length > 0) {
    logger.warn(
      { agents: unconfigured.map((error) => error.file.split(/[\\/]/).pop()) },
      "no provider credentials are set, so these agents are inactive until their model's provider is configured (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or the config file)",
    );
  }
  return agents;
}
