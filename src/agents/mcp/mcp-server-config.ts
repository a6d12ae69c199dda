import { z } from 'zod';
import { usdToMicros } from '../../core/money.ts';

/**
 * `mcp_servers:` entries of an agent file (and, converted, the Responses API's
 * `{type: "mcp"}` tools). A server is reached over Streamable HTTP (with the older
 * HTTP+SSE transport as fallback) at `url`, or started locally with `command`
 * (stdio). `${NAME}` in header values is replaced from the environment when the
 * connection is made, so secrets stay out of agent files.
 */
const LABEL = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,31}$/;

export const McpServerFileSchema = z
  .strictObject({
    label: z.string().regex(LABEL, 'must be 1-32 letters, digits, _ or -'),
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
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
  })
  .superRefine((server, context) => {
    if ((server.url === undefined) === (server.command === undefined)) context.addIssue({ code: 'custom', path: ['url'], message: 'give exactly one of url or command' });
  });

export type McpServerConfig = {
  label: string;
  url?: string;
  headers: Record<string, string>;
  command?: string;
  args: string[];
  allowedTools?: string[];
  requireApproval: boolean;
  costMicros: number;
  /** Given by a request (`{type: "mcp"}`): its connection is the run's own, closed after it, and never gets ${ENV}. */
  fromRequest?: boolean;
};

export const toMcpServerConfig = (file: z.infer<typeof McpServerFileSchema>): McpServerConfig => ({
  label: file.label,
  ...(file.url && { url: file.url }),
  headers: file.headers ?? {},
  ...(file.command && { command: file.command }),
  args: file.args ?? [],
  ...(file.allowed_tools && { allowedTools: file.allowed_tools }),
  requireApproval: file.require_approval === 'always',
  costMicros: file.cost_usd ?? 0,
});

/** `${NAME}` → the environment's value (empty when unset: the server then answers 401, as it should). */
export const substituteEnv = (value: string, env: Readonly<Record<string, string | undefined>>): string => value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');

/** The model sees an MCP tool as `mcp_<label>__<tool>` (within the 64 characters tool names allow). */
export const mcpToolName = (label: string, tool: string): string => `mcp_${label}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
