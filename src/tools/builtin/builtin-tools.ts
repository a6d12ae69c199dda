import type { ToolDefinition } from '../define-tool.ts';
import { calculatorTool } from './calculator.ts';
import { createCurrentTimeTool } from './current-time.ts';
import { createHttpFetchTool, type HttpFetchConfig } from './http-fetch.ts';
import { knowledgeSearchTool } from './knowledge-search.ts';

export type BuiltinToolsOptions = {
  /** Defaults come from JUNCTION_HTTP_FETCH_ALLOWLIST / JUNCTION_HTTP_FETCH_ALLOW_PRIVATE. */
  httpFetch?: Partial<HttpFetchConfig>;
  now?: () => Date;
};

/** What to pass as `builtins` to createToolRegistry. */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): ToolDefinition[] {
  return [calculatorTool, createCurrentTimeTool({ ...(options.now ? { now: options.now } : {}) }), createHttpFetchTool(options.httpFetch), knowledgeSearchTool];
}
