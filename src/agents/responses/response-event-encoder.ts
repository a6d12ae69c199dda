import type { JunctionError } from '../../core/errors.ts';
import type { FinishReason, ModelStreamEvent, Usage } from '../../core/model-types.ts';
import type { McpStep } from '../mcp/mcp-step.ts';
import type { RunEvent } from '../run-events.ts';
import type { McpToolOf } from './mcp-tool-names.ts';
import {
  type ApprovalRequestItem,
  type FunctionCallItem,
  type ItemStatus,
  type McpApprovalRequestItem,
  type McpCallItem,
  type McpListToolsItem,
  type MessageItem,
  newItemId,
  type OutputItem,
  type ReasoningItem,
  type ServerToolCallItem,
  type StreamEvent,
} from './response-items.ts';

type Open =
  | { kind: 'message'; index: number; item: MessageItem; text: string }
  | { kind: 'reasoning'; index: number; item: ReasoningItem; text: string }
  /** A client tool call streaming from the model. */
  | { kind: 'function_call'; index: number; item: FunctionCallItem; streamIndex: number }
  /** A server tool call while its tool runs. */
  | { kind: 'server_call'; index: number; item: ServerToolCallItem | McpCallItem; callId: string };

type BufferedCall = { callId: string; name: string; arguments: string };

export type ResponseEncoderOptions = {
  isClientTool(name: string): boolean;
  /** The MCP server behind a server tool's name: its steps show as `mcp_call` items. */
  mcpToolOf?: McpToolOf;
  /** The response as it stands, for `response.created` / `response.in_progress`. */
  snapshot(status: 'in_progress', output: OutputItem[]): Record<string, unknown>;
  /** Go on from a response as it stood at a step boundary (a background run resumed by another process). */
  resume?: { sequence: number; output: OutputItem[]; totals: ResponseEventEncoder['totals'] };
};

/**
 * Agent run events → Open Responses streaming events, one run at a time. It also
 * accumulates `output`, so a non-streaming response (which drains the same events)
 * carries exactly the items a stream would have shown.
 *
 * One item streams at a time. A server-side tool call is buffered while the model
 * streams it, added (`junction:tool_call` or `mcp_call`) when the tool starts and done,
 * carrying its output, when the tool returns; so a client sees "this tool is running"
 * for exactly as long as it runs, even while a parallel call or a sub-agent's steps
 * show after it. Client tool calls stream their arguments as the model writes them.
 * An MCP server's tools are listed (`mcp_list_tools`) once per server and agent, right
 * before the first call to it, as OpenAI lists them before its calls.
 */
export class ResponseEventEncoder {
  readonly output: OutputItem[] = [];
  /** What the run cost so far, from its events: the totals of a run that failed midway. */
  readonly totals = {
    usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 } as Required<Pick<Usage, 'inputTokens' | 'outputTokens' | 'cachedInputTokens' | 'reasoningTokens'>>,
    modelCostMicros: 0,
    toolCostMicros: 0,
  };
  readonly #options: ResponseEncoderOptions;
  #sequence = 0;
  #open: Open | undefined;
  #stepFinish: FinishReason | undefined;
  #serverCalls = new Map<number, BufferedCall>();
  /** Server calls whose tools still run while other items show (parallel calls, a sub-agent's steps): done when they return. */
  #running = new Map<string, Extract<Open, { kind: 'server_call' }>>();
  /** The MCP servers whose tools this response has listed, by agent and label. */
  #listed = new Set<string>();
  #ending = false;

  constructor(options: ResponseEncoderOptions) {
    this.#options = options;
    if (options.resume) {
      // Between steps no item is open, so the output, the totals and the next sequence number are the whole state.
      this.output.push(...structuredClone(options.resume.output));
      Object.assign(this.totals, structuredClone(options.resume.totals));
      this.#sequence = options.resume.sequence + 1;
      for (const item of this.output) if (item.type === 'mcp_list_tools') this.#listed.add(listingKey(item.server_label, item.agent));
    }
  }

  /** The number the next event gets. */
  get nextSequence(): number {
    return this.#sequence;
  }

  /** A lifecycle event (`response.queued`, `response.in_progress`, …) carrying the response as it stands. */
  lifecycle(type: string, response: Record<string, unknown>): StreamEvent {
    return this.#event(type, { response });
  }

  start(): StreamEvent[] {
    return [this.#event('response.created', { response: this.#options.snapshot('in_progress', []) }), this.#event('response.in_progress', { response: this.#options.snapshot('in_progress', []) })];
  }

  encode(event: RunEvent): StreamEvent[] {
    if (event.agent) return this.#subAgentEvent(event, event.agent);
    switch (event.type) {
      case 'model-started':
        this.#stepFinish = undefined;
        this.#serverCalls = new Map();
        return [];
      case 'model-event':
        return this.#modelEvent(event.event);
      case 'model-finished': {
        const usage = this.totals.usage;
        usage.inputTokens += event.usage.inputTokens;
        usage.outputTokens += event.usage.outputTokens;
        usage.cachedInputTokens += event.usage.cachedInputTokens ?? 0;
        usage.reasoningTokens += event.usage.reasoningTokens ?? 0;
        this.totals.modelCostMicros += event.costMicros;
        // A step cut by max_output_tokens leaves its last item incomplete.
        return this.#close(this.#stepFinish?.unified === 'length' ? 'incomplete' : 'completed');
      }
      case 'tool-started':
        return [...this.#close('completed', 'commentary'), ...this.#startServerCall(event.callId, event.name, event.arguments, undefined, event.mcp)];
      case 'tool-finished':
        this.totals.toolCostMicros += event.costMicros;
        return this.#finishServerCall(event.callId, event.output, event.ok);
      case 'knowledge-retrieved':
        // No spec item fits and the item union is closed; retrieval shows in the answer's grounding only.
        return [];
    }
  }

  /**
   * A sub-agent's steps: its tool calls and their results show as items marked with the
   * agent; its model output is not the response's text (its answer comes back as the
   * output of the `ask_<agent>` call), but its usage counts.
   */
  #subAgentEvent(event: RunEvent, agent: string): StreamEvent[] {
    switch (event.type) {
      case 'model-finished':
        this.totals.usage.inputTokens += event.usage.inputTokens;
        this.totals.usage.outputTokens += event.usage.outputTokens;
        this.totals.usage.cachedInputTokens += event.usage.cachedInputTokens ?? 0;
        this.totals.usage.reasoningTokens += event.usage.reasoningTokens ?? 0;
        this.totals.modelCostMicros += event.costMicros;
        return [];
      case 'tool-started':
        return [...this.#close('completed', 'commentary'), ...this.#startServerCall(event.callId, event.name, event.arguments, agent, event.mcp)];
      case 'tool-finished':
        this.totals.toolCostMicros += event.costMicros;
        return this.#finishServerCall(event.callId, event.output, event.ok);
      default:
        return [];
    }
  }

  /** At the end of a run: closes what is open and shows server tool calls that never ran (step bound reached; no output). */
  closeAll(): StreamEvent[] {
    this.#ending = true;
    const events = this.#close(this.#stepFinish?.unified === 'length' ? 'incomplete' : 'completed');
    for (const running of this.#running.values()) {
      running.item.status = 'incomplete';
      events.push(this.#event('response.output_item.done', { output_index: running.index, item: clone(running.item) }));
    }
    this.#running.clear();
    for (const call of this.#serverCalls.values()) {
      events.push(...this.#startServerCall(call.callId, call.name, call.arguments), ...this.#close('incomplete'));
    }
    this.#serverCalls.clear();
    return events;
  }

  /** A paused run's last items: one approval request per call that waits (those calls are not shown as run). */
  approvalRequests(calls: ReadonlyArray<{ callId: string; name: string; arguments: string; agent?: string; mcp?: { serverLabel: string; tool: string } }>): StreamEvent[] {
    const events = this.#close('completed');
    for (const call of calls) {
      for (const [index, buffered] of this.#serverCalls) if (buffered.callId === call.callId) this.#serverCalls.delete(index);
      // The run says which MCP server a waiting call is for at any depth; a pause saved without it goes by the name.
      const mcp = call.mcp ?? (call.agent ? undefined : this.#options.mcpToolOf?.(call.name));
      // A sub-agent's request says which agent raised it, as its steps do.
      const raisedBy = call.agent ? { agent: call.agent } : {};
      const item: ApprovalRequestItem | McpApprovalRequestItem = mcp
        ? {
            type: 'mcp_approval_request',
            id: newItemId.mcpApprovalRequest(),
            status: 'completed',
            server_label: mcp.serverLabel,
            name: mcp.tool,
            arguments: call.arguments,
            call_id: call.callId,
            ...raisedBy,
          }
        : { type: 'junction:approval_request', id: newItemId.approvalRequest(), status: 'completed', call_id: call.callId, name: call.name, arguments: call.arguments, ...raisedBy };
      const index = this.output.length;
      this.output.push(item);
      events.push(this.#event('response.output_item.added', { output_index: index, item: clone(item) }));
      events.push(this.#event('response.output_item.done', { output_index: index, item: clone(item) }));
    }
    return events;
  }

  /** `response.completed` / `response.incomplete` / `response.failed`, by the final response's status. */
  terminal(response: Record<string, unknown> & { status: string }): StreamEvent {
    // The spec has no event for a cancelled response: it ends as a failure would, its status saying why.
    if (response.status === 'failed' || response.status === 'cancelled') return this.#event('response.failed', { response });
    return this.#event(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
  }

  error(failure: JunctionError): StreamEvent {
    return this.#event('error', { error: { type: failure.type, code: failure.code, message: failure.message, param: failure.param } });
  }

  #modelEvent(event: ModelStreamEvent): StreamEvent[] {
    switch (event.type) {
      case 'text-delta':
        return [...this.#ensureText('message'), this.#textDelta(event.delta)];
      case 'reasoning-delta':
        return [...this.#ensureText('reasoning'), this.#textDelta(event.delta)];
      case 'tool-call-start':
        if (!this.#options.isClientTool(event.name)) {
          this.#serverCalls.set(event.index, { callId: event.id, name: event.name, arguments: '' });
          return [];
        }
        return [...this.#close('completed', 'commentary'), ...this.#openCall({ callId: event.id, name: event.name, streamIndex: event.index })];
      case 'tool-call-delta': {
        const open = this.#open;
        if (open?.kind === 'function_call' && open.streamIndex === event.index) {
          open.item.arguments += event.argumentsDelta;
          return [this.#event('response.function_call_arguments.delta', { item_id: open.item.id, output_index: open.index, delta: event.argumentsDelta })];
        }
        const buffered = this.#serverCalls.get(event.index);
        if (buffered) buffered.arguments += event.argumentsDelta;
        return [];
      }
      case 'finish':
        this.#stepFinish = event.finishReason;
        return [];
      default:
        return [];
    }
  }

  #ensureText(kind: 'message' | 'reasoning'): StreamEvent[] {
    if (this.#open?.kind === kind) return [];
    const events = this.#close('completed');
    const index = this.output.length;
    if (kind === 'message') {
      const item: MessageItem = { type: 'message', id: newItemId.message(), status: 'in_progress', role: 'assistant', content: [] };
      this.output.push(item);
      this.#open = { kind, index, item, text: '' };
      events.push(this.#event('response.output_item.added', { output_index: index, item: clone(item) }));
      events.push(this.#event('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
    } else {
      const item: ReasoningItem = { type: 'reasoning', id: newItemId.reasoning(), summary: [], content: [] };
      this.output.push(item);
      this.#open = { kind, index, item, text: '' };
      events.push(this.#event('response.output_item.added', { output_index: index, item: clone(item) }));
      events.push(this.#event('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } }));
    }
    return events;
  }

  #textDelta(delta: string): StreamEvent {
    const open = this.#open;
    if (open?.kind !== 'message' && open?.kind !== 'reasoning') throw new Error('text delta without an open text item');
    open.text += delta;
    const type = open.kind === 'message' ? 'response.output_text.delta' : 'response.reasoning.delta';
    return this.#event(type, { item_id: open.item.id, output_index: open.index, content_index: 0, delta });
  }

  #openCall(call: { callId: string; name: string; streamIndex: number }): StreamEvent[] {
    const index = this.output.length;
    const item: FunctionCallItem = { type: 'function_call', id: newItemId.functionCall(), call_id: call.callId, name: call.name, arguments: '', status: 'in_progress' };
    this.output.push(item);
    this.#open = { kind: 'function_call', index, item, streamIndex: call.streamIndex };
    return [this.#event('response.output_item.added', { output_index: index, item: clone(item) })];
  }

  /**
   * The call item opens as the tool starts, with its arguments at once; it stays open while
   * the tool runs. Its arguments stream with the spec's function-call argument events, which
   * clients draw calls with (an SDK that accumulates them does so for `function_call` only);
   * an `mcp_call` streams with OpenAI's MCP events instead.
   */
  #startServerCall(callId: string, name: string, args: string, agent?: string, step?: McpStep): StreamEvent[] {
    for (const [index, call] of this.#serverCalls) if (call.callId === callId && call.name === name) this.#serverCalls.delete(index);
    const mcp = this.#mcpToolOf(name, agent, step);
    const events = step ? this.#listTools(step, agent) : [];
    const by = agent ? { agent } : {};
    const item: ServerToolCallItem | McpCallItem = mcp
      ? { type: 'mcp_call', id: newItemId.mcpCall(), server_label: mcp.serverLabel, name: mcp.tool, arguments: '', output: null, error: null, status: 'in_progress', ...by }
      : { type: 'junction:tool_call', id: newItemId.serverToolCall(), call_id: callId, name, arguments: '', output: null, status: 'in_progress', ...by };
    const index = this.output.length;
    this.output.push(item);
    this.#open = { kind: 'server_call', index, item, callId };
    const at = { item_id: item.id, output_index: index };
    const argumentEvent = item.type === 'mcp_call' ? 'response.mcp_call_arguments' : 'response.function_call_arguments';
    events.push(this.#event('response.output_item.added', { output_index: index, item: clone(item) }));
    if (item.type === 'mcp_call') events.push(this.#event('response.mcp_call.in_progress', at));
    item.arguments = args;
    if (args) events.push(this.#event(`${argumentEvent}.delta`, { ...at, delta: args }));
    events.push(this.#event(`${argumentEvent}.done`, { ...at, arguments: args }));
    return events;
  }

  /** A step says which MCP server ran it at any depth; a top-level call that never ran has only its name to go by. */
  #mcpToolOf(name: string, agent: string | undefined, step: McpStep | undefined) {
    if (step) return { serverLabel: step.serverLabel, tool: step.tool };
    return agent ? undefined : this.#options.mcpToolOf?.(name);
  }

  /** `mcp_list_tools` for a server this response has not listed yet (for this agent): added, listed, done. */
  #listTools(step: McpStep, agent: string | undefined): StreamEvent[] {
    const key = listingKey(step.serverLabel, agent);
    if (this.#listed.has(key)) return [];
    this.#listed.add(key);
    const item: McpListToolsItem = { type: 'mcp_list_tools', id: newItemId.mcpListTools(), server_label: step.serverLabel, tools: [], error: null, ...(agent && { agent }) };
    const index = this.output.length;
    this.output.push(item);
    const at = { item_id: item.id, output_index: index };
    const events = [this.#event('response.output_item.added', { output_index: index, item: clone(item) }), this.#event('response.mcp_list_tools.in_progress', at)];
    item.tools = step.listed.map((tool) => ({ name: tool.name, description: tool.description ?? null, input_schema: tool.inputSchema, annotations: null }));
    events.push(this.#event('response.mcp_list_tools.completed', at), this.#event('response.output_item.done', { output_index: index, item: clone(item) }));
    return events;
  }

  #finishServerCall(callId: string, output: string, ok: boolean): StreamEvent[] {
    const open = this.#open;
    const call = open?.kind === 'server_call' && open.callId === callId ? open : this.#running.get(callId);
    if (!call) return [];
    call.item.output = output;
    if (call.item.type === 'mcp_call' && !ok) call.item.error = output;
    // OpenAI's MCP events say how the call ended before its item is done.
    const ended = call.item.type === 'mcp_call' ? [this.#event(ok ? 'response.mcp_call.completed' : 'response.mcp_call.failed', { item_id: call.item.id, output_index: call.index })] : [];
    if (call === open) return [...ended, ...this.#close('completed')];
    this.#running.delete(callId);
    call.item.status = 'completed';
    return [...ended, this.#event('response.output_item.done', { output_index: call.index, item: clone(call.item) })];
  }

  /**
   * Closes the open item. A message's `phase` is `commentary` when a tool call follows it
   * (`phase` given by the caller that opens the call, or a step that finished to call
   * tools), else `final_answer`.
   */
  #close(status: ItemStatus, phase?: MessageItem['phase']): StreamEvent[] {
    const open = this.#open;
    if (!open) return [];
    this.#open = undefined;
    const at = { item_id: open.item.id, output_index: open.index };
    switch (open.kind) {
      case 'message': {
        const part = { type: 'output_text' as const, text: open.text, annotations: [] as [] };
        open.item.content = [part];
        open.item.status = status;
        open.item.phase = phase ?? (this.#stepFinish?.unified === 'tool-calls' ? 'commentary' : 'final_answer');
        return [
          this.#event('response.output_text.done', { ...at, content_index: 0, text: open.text }),
          this.#event('response.content_part.done', { ...at, content_index: 0, part: clone(part) }),
          this.#event('response.output_item.done', { output_index: open.index, item: clone(open.item) }),
        ];
      }
      case 'reasoning': {
        const part = { type: 'reasoning_text' as const, text: open.text };
        open.item.content = [part];
        return [
          this.#event('response.reasoning.done', { ...at, content_index: 0, text: open.text }),
          this.#event('response.content_part.done', { ...at, content_index: 0, part: clone(part) }),
          this.#event('response.output_item.done', { output_index: open.index, item: clone(open.item) }),
        ];
      }
      case 'function_call': {
        open.item.status = status;
        return [
          this.#event('response.function_call_arguments.done', { ...at, arguments: open.item.arguments }),
          this.#event('response.output_item.done', { output_index: open.index, item: clone(open.item) }),
        ];
      }
      case 'server_call': {
        if (open.item.output === null && !this.#ending) {
          this.#running.set(open.callId, open);
          return [];
        }
        // A server call already sent its arguments when its tool started.
        open.item.status = status;
        return [this.#event('response.output_item.done', { output_index: open.index, item: clone(open.item) })];
      }
    }
  }

  #event(type: string, payload: Record<string, unknown>): StreamEvent {
    const event: StreamEvent = { type, sequence_number: this.#sequence, ...payload };
    this.#sequence += 1;
    return event;
  }
}

const listingKey = (serverLabel: string, agent: string | undefined): string => `${agent ?? ''}\u0000${serverLabel}`;

// Events carry snapshots: the item objects in `output` keep changing after an event is made.
const clone = <Value>(value: Value): Value => structuredClone(value);
