import { z } from 'zod';
import { usdToMicros } from '../core/money.ts';
import { ScorerListSchema } from './scorer-declarations.ts';
import { MAX_TENANT_MCP_SERVERS, McpServerFileSchema, TenantMcpServerSchema, toMcpServerConfig, type Trust } from './mcp/mcp-server-config.ts';

/**
 * The file format of `agents/<id>.yaml`. Strict: an unknown key is an error (a typo
 * such as `temprature` must not be silently ignored). Cross-references (model,
 * tools, knowledge folders, instructions_file) are checked by the registry, which
 * knows the catalog and the folders. The YAML is snake_case; the parsed config is
 * camelCase, converted here at the edge.
 */

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
// A collection is a direct child folder of the knowledge dir, never a path.
const COLLECTION = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/;

export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
export const DEFAULT_MAX_STEPS = 10;

const InstructionsFileSchema = z
  .string()
  .min(1)
  .refine((path) => !path.startsWith('/') && !path.split(/[\\/]/).includes('..'), 'must be a path inside the agents folder');

const uniqueList = <T extends z.ZodType<string>>(item: T, what: string) =>
  z.array(item).superRefine((values, context) => {
    values.forEach((value, index) => {
      if (values.indexOf(value) !== index) context.addIssue({ code: 'custom', path: [index], message: `duplicate ${what} "${value}"` });
    });
  });

const serverList = <T extends z.ZodType<{ label: string }>>(server: T, max = Number.POSITIVE_INFINITY) =>
  z
    .array(server)
    .max(max, `at most ${max} MCP servers`)
    .superRefine((servers, context) => {
      servers.forEach((entry, index) => {
        if (servers.findIndex((other) => other.label === entry.label) !== index) context.addIssue({ code: 'custom', path: [index, 'label'], message: `duplicate label "${entry.label}"` });
      });
    })
    .default([]);

/** The fields an agent has wherever it is written (a file of the operator, or the console of an account). */
const agentFields = {
  name: z.string().min(1).max(200),
  description: z.string().max(2_000).optional(),
  model: z.string().min(1),
  fallback_models: uniqueList(z.string().min(1), 'model').optional(),
  instructions: z.string().min(1).optional(),
  // A tool by name, or `{ name, require_approval: true }`: the run pauses for a person before it runs.
  tools: z
    .array(z.union([z.string().regex(NAME, 'must be a tool name'), z.strictObject({ name: z.string().regex(NAME, 'must be a tool name'), require_approval: z.boolean().default(false) })]))
    .superRefine((entries, context) => {
      const names = entries.map((entry) => (typeof entry === 'string' ? entry : entry.name));
      names.forEach((name, index) => {
        if (names.indexOf(name) !== index) context.addIssue({ code: 'custom', path: [index], message: `duplicate tool "${name}"` });
      });
    })
    .default([]),
  knowledge: uniqueList(z.string().regex(COLLECTION, 'must be a folder name under the knowledge folder'), 'collection').default([]),
  temperature: z.number().min(0).max(2).optional(),
  max_output_tokens: z.number().int().positive().optional(),
  reasoning: z.strictObject({ effort: z.enum(REASONING_EFFORTS) }).optional(),
  max_steps: z.number().int().min(1).max(100).default(DEFAULT_MAX_STEPS),
  // Agents this one may call as tools (`ask_<id>`), each run as a subgraph of this run.
  agents: uniqueList(z.string().regex(NAME, 'must be an agent id'), 'agent').default([]),
  // Agents this one may hand the conversation to (`transfer_to_<id>`): it answers this and later turns.
  handoffs: uniqueList(z.string().regex(NAME, 'must be an agent id'), 'agent').default([]),
  // Run bounds: a run that reaches one ends `incomplete` with the bound as the reason.
  max_run_seconds: z.number().positive().max(86_400).optional(),
  max_run_cost_usd: z
    .union([z.number(), z.string()])
    .transform((value, context) => {
      try {
        return usdToMicros(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    })
    .refine((micros) => micros > 0, 'must be above 0')
    .optional(),
  // How evaluations score this agent's runs when a request names no scorers (scorer-declarations.ts).
  scorers: ScorerListSchema.optional(),
};

/** An operator's agent file: it may name its account, keep its instructions in a file and start MCP servers as commands. */
export const AgentFileSchema = z
  .strictObject({
    /** The owning account, by name or id; without it the agent belongs to the default account. */
    account: z.string().min(1).max(200).optional(),
    ...agentFields,
    instructions_file: InstructionsFileSchema.optional(),
    // MCP servers whose tools the agent may call (mcp/mcp-server-config.ts).
    mcp_servers: serverList(McpServerFileSchema),
  })
  .superRefine((file, context) => {
    if ((file.instructions === undefined) === (file.instructions_file === undefined)) {
      context.addIssue({ code: 'custom', path: ['instructions'], message: 'give exactly one of instructions or instructions_file' });
    }
  });

/** A file-only field: present in a console definition, it is refused with this reason. */
const fileOnly = (reason: string) => z.never({ error: reason }).optional();

/**
 * A console agent, written by a tenant: the file's fields without the operator's
 * powers. Its account is the one it is saved in, its instructions are inline, and its
 * MCP servers are URLs (tenant-mcp-policy.ts) whose header values are sent as written.
 */
export const ConsoleAgentDefinitionSchema = z
  .strictObject({
    ...agentFields,
    account: fileOnly('a console agent belongs to the account it is saved in; leave account out'),
    instructions_file: fileOnly('console agents keep their instructions inline (instructions)'),
    mcp_servers: serverList(TenantMcpServerSchema, MAX_TENANT_MCP_SERVERS),
  })
  .superRefine((file, context) => {
    if (file.instructions === undefined) context.addIssue({ code: 'custom', path: ['instructions'], message: 'give the instructions' });
  });

export type AgentFile = z.input<typeof AgentFileSchema>;

const toAgentConfig = (file: z.infer<typeof AgentFileSchema>, trust: Trust) => ({
  account: file.account,
  name: file.name,
  description: file.description ?? '',
  model: file.model,
  fallbackModels: file.fallback_models ?? [],
  instructions: file.instructions,
  instructionsFile: file.instructions_file,
  tools: file.tools.map((entry) => (typeof entry === 'string' ? entry : entry.name)),
  /** Tools that pause the run for an approval before they run. */
  approvalTools: file.tools.flatMap((entry) => (typeof entry !== 'string' && entry.require_approval ? [entry.name] : [])),
  knowledge: file.knowledge,
  temperature: file.temperature,
  maxOutputTokens: file.max_output_tokens,
  reasoning: file.reasoning,
  maxSteps: file.max_steps,
  agents: file.agents,
  handoffs: file.handoffs,
  mcpServers: file.mcp_servers.map((server) => toMcpServerConfig(server, trust)),
  maxRunSeconds: file.max_run_seconds,
  maxRunCostMicros: file.max_run_cost_usd,
  scorers: file.scorers,
  /** Who wrote the agent: what its MCP servers may do follows from it. */
  trust,
});

export const AgentConfigSchema = AgentFileSchema.transform((file) => toAgentConfig(file, 'operator'));
export const ConsoleAgentConfigSchema = ConsoleAgentDefinitionSchema.transform((file) => toAgentConfig(file, 'tenant'));

export type AgentConfig = z.infer<typeof AgentConfigSchema>;

/**
 * The fields the registry cross-checks (models, tools, knowledge, instructions_file),
 * read leniently from a file the strict schema refused: its bad references are then
 * reported with its shape problems, every problem of the file at once. An entry that
 * is malformed itself reads as `undefined` (the strict schema already names it), so
 * positions, and with them the issue paths, stay those of the file.
 */
const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const lenientList = <T extends z.ZodType>(item: T) => z.array(lenient(item)).catch([]);
export const AgentReferencesSchema = z
  .object({
    model: lenient(z.string().min(1)),
    fallback_models: lenientList(z.string().min(1)),
    tools: lenientList(z.union([z.string().regex(NAME), z.object({ name: z.string().regex(NAME) }).transform((entry) => entry.name)])),
    knowledge: lenientList(z.string().regex(COLLECTION)),
    instructions_file: lenient(InstructionsFileSchema),
  })
  .catch({ fallback_models: [], tools: [], knowledge: [] })
  .transform((file) => ({
    model: file.model,
    fallbackModels: file.fallback_models,
    tools: file.tools,
    knowledge: file.knowledge,
    instructionsFile: file.instructions_file,
  }));

/** What the registry cross-checks: a valid config, or what could be read of a refused file. */
export type AgentReferences = {
  model: string | undefined;
  fallbackModels: ReadonlyArray<string | undefined>;
  tools: ReadonlyArray<string | undefined>;
  knowledge: ReadonlyArray<string | undefined>;
  instructionsFile: string | undefined;
};
