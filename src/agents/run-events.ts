import type { ModelStreamEvent, Usage } from '../core/model-types.ts';
import type { McpStep } from './mcp/mcp-step.ts';

/**
 * What an agent run reports while it works, in order: the side channel LangGraph
 * streams (`streamMode: "custom"`). Front-ends render these: the Agents chat endpoint
 * as chat chunks, the Responses endpoint as semantic events.
 */
export type RunEvent = (
  | { type: 'knowledge-retrieved'; query: string; hits: Array<{ source: string; title: string | null; score: number; text: string }> }
  | { type: 'model-started'; step: number }
  | { type: 'model-event'; step: number; event: ModelStreamEvent }
  | { type: 'model-finished'; step: number; model: string; generationId: string; usage: Usage; costMicros: number }
  /** `mcp`: set when the tool is an MCP server's. */
  | { type: 'tool-started'; step: number; callId: string; name: string; arguments: string; mcp?: McpStep }
  | { type: 'tool-finished'; step: number; callId: string; name: string; ok: boolean; output: string; costMicros: number; durationMs: number }
) & {
  /** Set on the steps of a sub-agent: the path of agents that took it (`researcher`, `researcher/fetcher`). */
  agent?: string;
};
