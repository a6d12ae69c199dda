import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolDefinition } from '../../core/model-types.ts';
import { RefusedDestinationError } from '../../net/address-guard.ts';
import { cappedFetch, type FetchLike, guardedFetch } from '../../net/guarded-fetch.ts';
import { boundToolContent } from '../../tools/tool-content-bound.ts';
import { CALL_MARK, watchedFetch } from './mcp-answer-watch.ts';
import { type McpServerConfig, mcpToolName, substituteEnv } from './mcp-server-config.ts';
import { type TenantMcpPolicy, tenantMcpUrlRefusal } from './tenant-mcp-policy.ts';

/** One tool of an MCP server, as the model sees it. */
export type McpTool = { definition: ToolDefinition; server: McpServerConfig; tool: string; via: McpServers };

type Connection = { client: Client; tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }> | undefined };

/** The SDK's client side, imported at the first connection: start-up does not wait for it. */
let sdk: Promise<McpSdk> | undefined;
type McpSdk = {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  SSEClientTransport: typeof import('@modelcontextprotocol/sdk/client/sse.js').SSEClientTransport;
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  ToolListChangedNotificationSchema: typeof import('@modelcontextprotocol/sdk/types.js').ToolListChangedNotificationSchema;
};
const loadMcpSdk = (): Promise<McpSdk> =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, sse, stdio, streamable, types]) => ({
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  })));

const CONNECT_TIMEOUT_MS = 10_000;
const CALL_TIMEOUT_MS = 60_000;
/** One HTTP answer of an MCP server read at most: a server answering forever is cut off there (and by the call timeout). */
export const MAX_MCP_RESPONSE_BYTES = 8_000_000;
/** How long after a call's HTTP answer ended its result may still be on its way through the SDK. */
const ANSWER_GRACE_MS = 50;

export type McpServersOptions = {
  /** The server's environment: the operator's servers get it (commands, `${NAME}` in headers); a tenant's never. */
  env: Readonly<Record<string, string | undefined>>;
  /** Where a tenant's servers may be (tenant-mcp-policy.ts). */
  tenantPolicy: TenantMcpPolicy;
  onError?: (error: unknown, server: McpServerConfig) => void;
  maxResponseBytes?: number;
};

/**
 * Connections to MCP servers through the official SDK client, one per server (kept and
 * shared by runs), with its tool list cached until the server says it changed
 * (`notifications/tools/list_changed`). A server that cannot be reached contributes no
 * tools to a run that starts while it is down; a call to a server that went down is a
 * tool error the model sees, never a failed run. Either way the connection is dropped
 * and made again on next use. A server's `trust` is checked here again, whatever its
 * config says: a tenant's server never starts a command, never gets the environment in
 * its headers and is reached through the guarded fetch only.
 */
export class McpServers {
  readonly #options: McpServersOptions;
  readonly #connections = new Map<string, Promise<Connection>>();
  readonly #onError: (error: unknown, server: McpServerConfig) => void;
  readonly #tenantFetch: FetchLike;
  readonly #operatorFetch: FetchLike;
  /** Calls in flight over HTTP, by their mark: told when their answer ended. */
  readonly #answersEnded = new Map<string, (error?: unknown) => void>();

  constructor(options: McpServersOptions) {
    this.#options = options;
    this.#onError = options.onError ?? (() => undefined);
    const maxResponseBytes = options.maxResponseBytes ?? MAX_MCP_RESPONSE_BYTES;
    const answerEnded = (mark: string, error?: unknown) => this.#answersEnded.get(mark)?.(error);
    this.#tenantFetch = watchedFetch(guardedFetch({ ...options.tenantPolicy, checkUrl: (url) => tenantMcpUrlRefusal(url, options.tenantPolicy), maxResponseBytes, who: 'MCP' }), answerEnded);
    this.#operatorFetch = watchedFetch(cappedFetch(maxResponseBytes, 'MCP'), answerEnded);
  }

  /** Connections of one run's own (servers a request added): the same policies, none of the environment, closed after the run. */
  forRun(): McpServers {
    return new McpServers({ ...this.#options, env: {}, onError: this.#onError });
  }

  /** The tools of these servers (filtered by `allowed_tools`); an unreachable server adds none. */
  async tools(servers: readonly McpServerConfig[]): Promise<McpTool[]> {
    const lists = await Promise.all(
      servers.map(async (server) => {
        try {
          const connection = await this.#connection(server);
          connection.tools ??= (await connection.client.listTools(undefined, { timeout: CONNECT_TIMEOUT_MS })).tools as Connection['tools'];
          return (connection.tools ?? [])
            .filter((tool) => !server.allowedTools || server.allowedTools.includes(tool.name))
            .map((tool) => ({
              server,
              via: this,
              tool: tool.name,
              definition: { name: mcpToolName(server.label, tool.name), ...(tool.description && { description: tool.description }), parameters: tool.inputSchema },
            }));
        } catch (error) {
          this.#forget(server);
          this.#onError(error, server);
          return [];
        }
      }),
    );
    return lists.flat();
  }

  /** `answered`: the server ran the call and sent its result (an error result too); false when it was never reached or went away. */
  async call(tool: McpTool, args: unknown, signal: AbortSignal): Promise<{ ok: boolean; content: string; answered: boolean }> {
    const mark = crypto.randomUUID();
    // A server that dies mid-call (or ends its answer without the result) fails the call now, not at the timeout.
    const ended = new Promise<never>((_, reject) => {
      this.#answersEnded.set(mark, (error) => {
        const why = error instanceof Error ? `: ${error.message}` : '';
        setTimeout(() => reject(new Error(`the server ended its answer without a result${why}`)), ANSWER_GRACE_MS);
      });
    });
    ended.catch(() => undefined);
    try {
      const connection = await this.#connection(tool.server);
      const call = connection.client.callTool({ name: tool.tool, arguments: (args ?? {}) as Record<string, unknown>, _meta: { [CALL_MARK]: mark } }, undefined, { timeout: CALL_TIMEOUT_MS, signal });
      call.catch(() => undefined); // when the answer's end decided first, the SDK's own rejection comes later
      const result = await Promise.race([call, ended]);
      const content = Array.isArray(result.content) ? result.content : [];
      const text = content.map((part: { type: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : `[${part.type}]`)).join('\n');
      return { ok: result.isError !== true, content: boundToolContent(text), answered: true };
    } catch (error) {
      this.#forget(tool.server);
      return { ok: false, content: `Error: the MCP server "${tool.server.label}" could not run ${tool.tool}: ${error instanceof Error ? error.message : String(error)}`, answered: false };
    } finally {
      this.#answersEnded.delete(mark);
    }
  }

  async close(): Promise<void> {
    const open = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(open.map(async (connection) => (await connection.catch(() => undefined))?.client.close().catch(() => undefined)));
  }

  #key(server: McpServerConfig): string {
    return JSON.stringify([server.trust, server.url, server.command, server.args, server.headers]);
  }

  #forget(server: McpServerConfig): void {
    const key = this.#key(server);
    const connection = this.#connections.get(key);
    this.#connections.delete(key);
    void connection?.then((open) => open.client.close()).catch(() => undefined);
  }

  #connection(server: McpServerConfig): Promise<Connection> {
    const key = this.#key(server);
    let connection = this.#connections.get(key);
    if (!connection) {
      connection = this.#connect(server);
      this.#connections.set(key, connection);
      connection.catch(() => this.#connections.delete(key));
    }
    return connection;
  }

  async #connect(server: McpServerConfig): Promise<Connection> {
    const { Client, SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport, ToolListChangedNotificationSchema } = await loadMcpSdk();
    const open = async (transport: Parameters<Client['connect']>[0]) => {
      const client = new Client({ name: 'junction', version: '0.1.0' });
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      const connection: Connection = { client, tools: undefined };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        connection.tools = undefined;
      });
      return connection;
    };
    const operator = server.trust === 'operator';
    if (server.command) {
      if (!operator) throw new Error(`the MCP server "${server.label}" is a command, which only agent files on the server may start`);
      return open(
        new StdioClientTransport({
          command: server.command,
          args: server.args,
          env: Object.fromEntries(Object.entries(this.#options.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
          stderr: 'ignore',
        }),
      );
    }
    if (server.url === undefined) throw new Error(`the MCP server "${server.label}" has no url`);
    const url = new URL(server.url);
    const headers = operator ? Object.fromEntries(Object.entries(server.headers).map(([name, value]) => [name, substituteEnv(value, this.#options.env)])) : { ...server.headers };
    const fetch = operator ? this.#operatorFetch : this.#tenantFetch;
    if (!operator) {
      // Refused before the transports try (and fall back): one clear reason, no traffic.
      const refusal = tenantMcpUrlRefusal(url, this.#options.tenantPolicy);
      if (refusal) throw new RefusedDestinationError(refusal);
    }
    try {
      return await open(new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch }));
    } catch (error) {
      if (error instanceof RefusedDestinationError) throw error;
      // Servers that speak only the older HTTP+SSE transport.
      return open(new SSEClientTransport(url, { requestInit: { headers }, fetch }));
    }
  }
}
