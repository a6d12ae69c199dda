import { AgentConfigError, createAgentRegistry } from '../agents/agent-registry.ts';
import { buildCatalog } from '../catalog/build-catalog.ts';
import { loadCatalogConfig, providerConfigsFromCatalogConfig } from '../catalog/load-config.ts';
import { resolveModel } from '../catalog/lookup.ts';
import { readEnvConfig } from '../config/env-config.ts';
import { providersFromEnv } from '../providers/provider-registry.ts';
import { pendingMigrations } from '../store/migrate.ts';
import { openDatabase } from '../store/open-database.ts';
import { createBuiltinTools } from '../tools/builtin/builtin-tools.ts';
import { displayPath } from '../tools/folder-watcher.ts';
import { createToolRegistry } from '../tools/tool-registry.ts';
import { type CheckResult, checkProvider } from './provider-check.ts';

/**
 * `npx junction doctor`: configuration, database and pgvector, each provider (one cheap
 * authenticated call), agent and tool files. Every problem comes with its fix.
 */
export async function runDoctor(env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  let config;
  try {
    config = readEnvConfig({ LOG_LEVEL: 'silent', ...env });
    results.push({ name: 'environment', ok: true, detail: 'valid' });
  } catch (error) {
    results.push({ name: 'environment', ok: false, detail: (error as Error).message, fix: 'correct the variable named above (see docs/configuration.md)' });
    return results;
  }

  let catalogConfig;
  try {
    catalogConfig = await loadCatalogConfig(config.configPath, env);
    results.push({ name: 'config file', ok: true, detail: config.configPath ?? 'none (built-in catalog only)' });
  } catch (error) {
    results.push({ name: 'config file', ok: false, detail: (error as Error).message, fix: 'fix the file and path named above' });
  }

  if (config.dataDir.startsWith('memory://') && !config.databaseUrl) {
    results.push({ name: 'database', ok: true, detail: 'memory:// (nothing to check; it lives in the server process)' });
  } else {
    try {
      const db = await openDatabase(config);
      try {
        await db.query('SELECT 1');
        results.push({ name: 'database', ok: true, detail: db.engine === 'postgres' ? 'PostgreSQL answers' : `embedded PGlite in ${config.dataDir}` });
        const vector = await db.query<{ extversion: string }>("SELECT extversion FROM pg_extension WHERE extname = 'vector'");
        results.push(
          vector.rows[0]
            ? { name: 'pgvector', ok: true, detail: `version ${vector.rows[0].extversion}` }
            : { name: 'pgvector', ok: false, detail: 'the vector extension is not installed', fix: 'install pgvector (bash scripts/install-pgvector.sh) and CREATE EXTENSION vector' },
        );
        const pending = await pendingMigrations(db).catch(() => ['(no schema yet)']);
        results.push(
          pending.length === 0
            ? { name: 'migrations', ok: true, detail: 'all applied' }
            : { name: 'migrations', ok: false, detail: `pending: ${pending.join(', ')}`, fix: 'run npx junction migrate (or start the server once)' },
        );
      } finally {
        await db.close();
      }
    } catch (error) {
      results.push({
        name: 'database',
        ok: false,
        detail: (error as Error).message,
        fix: config.databaseUrl ? 'check DATABASE_URL and that PostgreSQL is running' : 'stop the server holding the embedded store, or check JUNCTION_DATA_DIR',
      });
    }
  }

  const extra = catalogConfig ? providerConfigsFromCatalogConfig(catalogConfig, env) : { providers: [], skipped: [] };
  const providers = [...providersFromEnv(env), ...extra.providers];
  if (providers.length === 0) {
    results.push({
      name: 'providers',
      ok: false,
      detail: 'no provider is configured, so there are no models',
      fix: 'set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, or add providers to the config file',
    });
  }
  for (const skip of extra.skipped) results.push({ name: `provider ${skip.id}`, ok: false, detail: skip.reason, fix: 'set the variable named above' });
  results.push(...(await Promise.all(providers.map((provider) => checkProvider(provider)))));

  const catalog = catalogConfig ? buildCatalog({ providers: providers.map(({ id, kind }) => ({ id, kind })), config: catalogConfig, now: new Date() }) : undefined;
  const fileErrors: Error[] = [];
  const fileWarnings: string[] = [];
  const tools = await createToolRegistry({ toolsDir: config.toolsDir, builtins: createBuiltinTools(), watch: false, onError: (error) => fileErrors.push(error) });
  const agents = await createAgentRegistry({
    agentsDir: config.agentsDir,
    knowledgeDir: config.knowledgeDir,
    tools,
    isKnownModel: (id) => (catalog ? resolveModel(catalog, id) !== undefined : false),
    watch: false,
    onError: (error) => fileErrors.push(error),
    onWarning: (file, warnings) => fileWarnings.push(...warnings.map((warning) => `${displayPath(file)}: ${warning.path}: ${warning.message}`)),
  });
  tools.close();
  agents.close();
  results.push({ name: 'agent and tool files', ok: fileErrors.length === 0, detail: `${agents.list().length} agents, ${tools.list().length} tools loaded` });
  // Loaded, so not a failure; but the operator should know what was left out.
  for (const warning of fileWarnings) results.push({ name: 'file', ok: true, detail: warning, fix: "configure that model's provider, or remove it from the file" });
  for (const error of fileErrors) {
    const unknownModel = error instanceof AgentConfigError && error.issues.every((issue) => issue.message.startsWith('unknown model'));
    results.push({ name: 'file', ok: false, detail: error.message, fix: unknownModel ? "configure the model's provider, or change the agent's model" : 'fix the file and path named above' });
  }
  return results;
}
