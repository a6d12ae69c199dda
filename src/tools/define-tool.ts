import type { z } from 'zod';

/**
 * The authoring shape of a tool: what a file in `tools/` default-exports, either
 * through `defineTool({...})` or as a plain object with the same fields, so a tool
 * can be written without importing anything. `cost_usd` and `timeout_ms` are
 * snake_case because this is a file format (like the agent YAML); the registry turns
 * them into `costMicros` / `timeoutMs`.
 */

export type KnowledgeHit = { content: string; source: string; collection: string; score: number };

/**
 * Searches the collections of the agent being run. Injected by the runtime so the
 * knowledge subsystem (src/knowledge/) plugs in without tools depending on it.
 */
export type KnowledgeSearcher = {
  search(query: string, options?: { limit?: number }): Promise<KnowledgeHit[]>;
};

/** The subset of pino's logger a tool may use; a pino logger satisfies it. */
export type ToolLogger = {
  debug(details: object, message?: string): void;
  info(details: object, message?: string): void;
  warn(details: object, message?: string): void;
  error(details: object, message?: string): void;
};

export type ToolContext = {
  /** Aborted on timeout or when the run is cancelled; pass it to fetches. */
  signal: AbortSignal;
  accountId: string;
  agentId: string;
  knowledge: KnowledgeSearcher;
  logger?: ToolLogger;
};

/** A JSON Schema object, as the model sees it. */
export type JsonSchema = Record<string, unknown>;

/** Strings go to the model as they are; anything else is sent as JSON. */
export type ToolOutput = string | number | boolean | null | readonly unknown[] | { readonly [key: string]: unknown };

type ToolFields = {
  /** Letters, digits, `_` and `-`, at most 64: what every provider accepts as a function name. */
  name: string;
  description: string;
  /** Per call, in USD (number or decimal string, at most 6 decimals). */
  cost_usd?: number | string;
  /** Default 30 000. */
  timeout_ms?: number;
};

export type ZodToolDefinition<Schema extends z.ZodType> = ToolFields & {
  parameters: Schema;
  execute(args: z.output<Schema>, context: ToolContext): ToolOutput | Promise<ToolOutput>;
};

export type JsonSchemaToolDefinition<Args = Record<string, unknown>> = ToolFields & {
  parameters: JsonSchema;
  execute(args: Args, context: ToolContext): ToolOutput | Promise<ToolOutput>;
};

/** Either flavour; what the registry accepts from a file or a built-in. */
export type ToolDefinition = ZodToolDefinition<z.ZodType> | JsonSchemaToolDefinition<never>;

/** Identity at run time; gives `execute` typed arguments inferred from a zod schema. */
export function defineTool<Schema extends z.ZodType>(definition: ZodToolDefinition<Schema>): ZodToolDefinition<Schema>;
export function defineTool<Args = Record<string, unknown>>(definition: JsonSchemaToolDefinition<Args>): JsonSchemaToolDefinition<Args>;
export function defineTool(definition: ToolDefinition): ToolDefinition {
  return definition;
}
