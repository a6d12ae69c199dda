import { z } from 'zod';
import { usdToMicros } from '../../core/money.ts';

/**
 * `mcp_servers:` entries of an agent (and, converted, the Responses API's `{type:
 * "mcp"}` tools). A server is reached over Streamable HTTP (with the older HTTP+SSE
 * transport as fallback) at `url`, or, in an agent file only, started locally with
 * `command` (stdio). Who wrote the entry decides what it may do (`trust`): the
 * operator's files may start commands, reach private addresses and use `${NAME}` in
 * header values (replaced from the environment when the connection is made, so
 * secrets stay out of agent files); a tenant's (console agents, requests) may not.
 */
const LABEL = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,31}$/;

export type Trust = 'operator' | 'tenant';

/** Servers one console agent or one request may name: each is a connection the server opens for the tenant. */
export const MAX_TENANT_MCP_SERVERS = 10;

const serverFields = {
  label: z.string().regex(LABEL, 'must be 1-32 letters, digits, _ or -'),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  headers: z.record(z.string(), z.string()).optional(),
  allowed_tools: z.array(z.string().min(1)).optional(),
  require_approval: z.enum(['never', 'always']).default('never'),
  cost_usd: z
    .union([z.number(), z.string()])
    .transform((value, context) => {
      try {
        return usdToMicros(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    })
    .optional(),
};

export const McpServerFileSchema = z
  .strictObject({ ...serverFields, url: serverFields.url.optional(), command: z.string().min(1).optional(), args: z.array(z.string()).optional() })
  .superRefine((server, context) => {
    if ((server.url === undefined) === (server.command === undefined)) context.addIssue({ code: 'custom', path: ['url'], message: 'give exactly one of url or command' });
  });

/** A console agent's server: a URL only (header values are sent as written). */
const noCommand = z.never({ error: 'console agents cannot start commands: give the url of an MCP server' }).optional();
const { label, ...otherFields } = serverFields;
export const TenantMcpServerSchema = z.strictObject({ label, command: noCommand, args: noCommand, ...otherFields });

export type McpServerConfig = {
  label: string;
  url?: string;
  headers: Record<string, string>;
  command?: string;
  args: string[];
  allowedTools?: string[];
  requireApproval: boolean;
  costMicros: number;
  /** Who wrote it: only the operator's servers start commands, get ${ENV} in headers and skip the tenant address policy. */
  trust: Trust;
};

export const toMcpServerConfig = (file: z.infer<typeof McpServerFileSchema>, trust: Trust): McpServerConfig => ({
  label: file.label,
  ...(file.url && { url: file.url }),
  headers: file.headers ?? {},
  ...(file.command && { command: file.command }),
  args: file.args ?? [],
  ...(file.allowed_tools && { allowedTools: file.allowed_tools }),
  requireApproval: file.require_approval === 'always',
  costMicros: file.cost_usd ?? 0,
  trust,
});

/** `${NAME}` → the environment's value (empty when unset: the server then answers 401, as it should). */
export const substituteEnv = (value: string, env: Readonly<Record<string, string | undefined>>): string => value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');

/** The model sees an MCP tool as `mcp_<label>__<tool>` (within the 64 characters tool names allow). */
export const mcpToolName = (label: string, tool: string): string => `mcp_${label}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
