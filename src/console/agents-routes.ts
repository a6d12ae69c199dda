import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AgentDirectory, OwnedAgent } from '../agents/agent-directory.ts';
import { AgentReferencesSchema, ConsoleAgentConfigSchema, type AgentFile } from '../agents/agent-config-schema.ts';
import { toAgentFile, toAgentYaml } from '../agents/agent-file-format.ts';
import type { AgentIssue } from '../agents/agent-registry.ts';
import type { AgentVersion, ConsoleAgentStore, RefusedConsoleAgent } from '../agents/console-agent-store.ts';
import { type TenantMcpPolicy, tenantMcpUrlRefusal } from '../agents/mcp/tenant-mcp-policy.ts';
import { toModelListEntry } from '../catalog/model-list.ts';
import { listIndexedCollections } from '../knowledge/knowledge-repository.ts';
import type { Catalog } from '../catalog/types.ts';
import { JunctionError } from '../core/errors.ts';
import { parseInput } from '../http/parse-body.ts';
import { systemKeyFor } from '../keys/system-key.ts';
import type { AccountPlans } from '../pipeline/account-plans.ts';
import { isVisibleTo } from '../pipeline/model-access.ts';
import type { Database } from '../store/database.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { describeZodIssues } from '../tools/compile-tool.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { agentReleaseRoutes } from './agent-release-routes.ts';
import { type AgentDetail, SaveAgentSchema } from './contract/agent-editor.ts';
import type { ConsoleAgent } from './contract/agents.ts';

export type ConsoleAgentsDeps = {
  db: Database;
  now: () => Date;
  agents: AgentDirectory;
  tools: ToolRegistry | undefined;
  catalog: Catalog;
  plans: AccountPlans;
  knowledgeDir: string;
  /** Where console agents' MCP servers may be (JUNCTION_MCP_ALLOWLIST); none without it. */
  mcpPolicy?: Pick<TenantMcpPolicy, 'allowlist' | 'allowPrivate'>;
};

const AGENT_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const IdParamsSchema = z.object({ id: z.string().regex(AGENT_ID, 'letters, digits, "_" and "-", at most 64') });

const pathOf = (agent: OwnedAgent): string | null => (agent.source === 'file' ? relative(process.cwd(), agent.file) || agent.file : null);

const toListEntry = (agent: OwnedAgent): ConsoleAgent => ({
  id: agent.id,
  name: agent.config.name,
  description: agent.config.description,
  model: agent.config.model,
  source: agent.source,
  path: pathOf(agent),
  version: agent.version,
  tools: agent.config.tools,
  knowledge: agent.config.knowledge,
  updated_at: agent.updatedAt.toISOString(),
});

/** The collections agents can use: the knowledge folder's direct subfolders. */
function knowledgeCollections(knowledgeDir: string): string[] {
  if (!existsSync(knowledgeDir)) return [];
  return readdirSync(knowledgeDir)
    .filter((name) => !name.startsWith('.') && statSync(join(knowledgeDir, name)).isDirectory())
    .sort();
}

/**
 * The account's agents in the console: file agents read-only (with their path, and a
 * duplicate into an editable copy), console agents created, saved as immutable draft
 * versions, released (agent-release-routes.ts), exported as YAML and deleted. A console agent is tenant
 * input: saves are validated with the console's own, narrower schema (no commands, no
 * account, no instructions file), the same cross-checks as files, and its MCP servers
 * and linked agents against what the account may reach.
 */
export async function consoleAgentsRoutes(app: FastifyInstance, deps: ConsoleAgentsDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const editor = requireConsoleUser(deps.db, deps.now, 'admin');

  const mustFind = async (accountId: string, id: string) => {
    const agent = await deps.agents.find(accountId, id);
    if (!agent) throw new JunctionError('not_found', `No agent '${id}' in this account.`);
    return agent;
  };

  app.get('/agents', { preHandler: reader }, async (request) => ({ data: (await deps.agents.list(consoleCaller(request).accountId)).map(toListEntry) }));

  app.get('/agent-editor-options', { preHandler: reader }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    const plan = await deps.plans.planOf(accountId);
    const caller = systemKeyFor(accountId, deps.now());
    return {
      tools: (deps.tools?.list() ?? []).map((tool) => ({ name: tool.name, description: tool.description })).sort((a, b) => a.name.localeCompare(b.name)),
      knowledge: [...new Set([...knowledgeCollections(deps.knowledgeDir), ...(await consoleCollections(deps.db, accountId))])].sort(),
      models: deps.catalog.models.filter((model) => model.capabilities.has('chat') && isVisibleTo(deps.catalog, caller, plan, model)).map((model) => toModelListEntry(model).id),
    };
  });

  app.get('/agents/:id', { preHandler: reader }, async (request): Promise<AgentDetail> => {
    const accountId = consoleCaller(request).accountId;
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const refused = await deps.agents.consoleAgents.refusal(accountId, id);
    if (refused) return refusedDetail(deps.agents, accountId, refused);
    const agent = await mustFind(accountId, id);
    const history = agent.source === 'console' ? await deps.agents.consoleAgents.versions(accountId, id) : undefined;
    return {
      id,
      source: agent.source,
      path: pathOf(agent),
      version: agent.version,
      // The editor continues from the newest version, a draft included, not from the published one.
      definition: history?.versions[0]?.definition ?? toAgentFile(agent),
      ...releaseOf(history),
    };
  });

  app.get('/agents/:id/export', { preHandler: reader }, async (request, reply) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const agent = await mustFind(consoleCaller(request).accountId, id);
    return reply
      .header('content-type', 'text/yaml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${id}.yaml"`)
      .send(toAgentYaml(toAgentFile(agent), agent.config.account));
  });

  app.put('/agents/:id', { preHandler: editor }, async (request, reply) => {
    const caller = consoleCaller(request);
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const input = parseInput(SaveAgentSchema, request.body);
    const existing = (await deps.agents.find(caller.accountId, id)) ?? (await deps.agents.consoleAgents.refusal(caller.accountId, id));
    // `If-None-Match: *` (the console's New agent form) creates only: a taken id is refused, never overwritten.
    if (existing && request.headers['if-none-match'] === '*') {
      throw new JunctionError('conflict', `The id '${id}' is taken by another agent of this account: choose another id.`, { param: 'id' });
    }
    if (existing && 'source' in existing && existing.source === 'file') {
      throw new JunctionError('conflict', `'${id}' is a file agent of this account (${pathOf(existing)}): edit its YAML, or duplicate it under another id.`, { param: 'id' });
    }
    const issues = [...validate(input.definition, deps, await consoleCollections(deps.db, caller.accountId)), ...(await foreignLinks(input.definition, deps.agents, caller.accountId, id))];
    if (issues.length > 0) {
      const [first] = issues;
      return reply.status(400).send({ error: { message: `${first?.path}: ${first?.message}`, code: 'invalid_agent', param: first?.path ?? null }, issues });
    }
    const author = { userId: caller.user.id, email: caller.user.email };
    // A published version today's rules refuse serves nobody: its correction is published at once, not kept a draft.
    const publish = input.publish === true || (existing !== undefined && 'refused' in existing);
    const saved = await deps.agents.consoleAgents.save(caller.accountId, id, input.definition as AgentFile, author, input.change_note ?? null, { publish });
    return reply.status(existing ? 200 : 201).send({ id, ...saved });
  });

  await agentReleaseRoutes(app, deps);

  app.delete('/agents/:id', { preHandler: editor }, async (request) => {
    const { id } = parseInput(IdParamsSchema, request.params, 'path');
    const caller = consoleCaller(request);
    if (!(await deps.agents.consoleAgents.remove(caller.accountId, id, { userId: caller.user.id, email: caller.user.email }))) {
      throw new JunctionError('not_found', `No console agent '${id}' in this account.`);
    }
    return { deleted: true };
  });
}

const toVersionEntry = (version: AgentVersion) => ({ version: version.version, change_note: version.changeNote, created_by: version.createdByEmail, created_at: version.createdAt.toISOString() });

/** The versions and the release state of a console agent (file agents have none). */
const releaseOf = (history: Awaited<ReturnType<ConsoleAgentStore['versions']>>) => ({
  versions: (history?.versions ?? []).map(toVersionEntry),
  published_version: history?.published ?? null,
  newest_version: history?.newest ?? null,
  staged: history?.staged ?? null,
});

/** A stored console agent that today's rules refuse: shown as stored, with why, so it can be corrected or deleted. */
async function refusedDetail(agents: AgentDirectory, accountId: string, refused: RefusedConsoleAgent): Promise<AgentDetail> {
  const history = await agents.consoleAgents.versions(accountId, refused.id);
  const stored = history?.versions.find((version) => version.version === refused.version);
  return {
    id: refused.id,
    source: 'console',
    path: null,
    version: `v${refused.version}`,
    definition: stored?.definition ?? {},
    ...releaseOf(history),
    issues: refused.issues,
  };
}

/** The console schema (strict; tenant MCP servers), the registry's cross-checks, and where its MCP servers are. */
function validate(definition: Record<string, unknown>, deps: ConsoleAgentsDeps, uploadedCollections: string[]): AgentIssue[] {
  const parsed = ConsoleAgentConfigSchema.safeParse(definition);
  // A refused shape is reported with its bad references, every problem at once, as for files.
  const references = parsed.success ? parsed.data : AgentReferencesSchema.parse(definition);
  // The account's uploaded collections have no folder on disk: they are known all the same.
  const uploaded = new Set(uploadedCollections);
  const referenceIssues = deps.agents.files.check(references).filter((issue) => {
    const index = /^knowledge\[(\d+)\]$/.exec(issue.path)?.[1];
    return index === undefined || !uploaded.has(references.knowledge[Number(index)] ?? '');
  });
  const policy = deps.mcpPolicy ?? { allowlist: [], allowPrivate: false };
  const serverIssues = (parsed.success ? parsed.data.mcpServers : []).flatMap((server, index) => {
    const refusal = server.url === undefined ? undefined : tenantMcpUrlRefusal(new URL(server.url), policy);
    return refusal ? [{ path: `mcp_servers[${index}].url`, message: refusal }] : [];
  });
  return [...(parsed.success ? [] : describeZodIssues(parsed.error.issues)), ...referenceIssues, ...serverIssues];
}

const LinkedIdsSchema = z.object({ agents: z.array(z.string()).catch([]), handoffs: z.array(z.string()).catch([]) }).catch({ agents: [], handoffs: [] });

/** `agents:` and `handoffs:` may name this account's agents only (or the agent being saved): no other account's, none that does not exist. */
async function foreignLinks(definition: Record<string, unknown>, agents: AgentDirectory, accountId: string, savedId: string): Promise<AgentIssue[]> {
  const links = LinkedIdsSchema.parse(definition);
  const issues: AgentIssue[] = [];
  for (const field of ['agents', 'handoffs'] as const) {
    for (const [index, id] of links[field].entries()) {
      if (id !== savedId && !(await agents.find(accountId, id))) issues.push({ path: `${field}[${index}]`, message: `no agent "${id}" in this account` });
    }
  }
  return issues;
}

async function consoleCollections(db: Database, accountId: string): Promise<string[]> {
  return (await listIndexedCollections(db, accountId)).filter((collection) => collection.source === 'console').map((collection) => collection.name);
}
