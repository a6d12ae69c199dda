import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import { randomHex } from '../core/random-hex.ts';
import type { RunStepKind, RunStepRecord, RunStepSink } from '../runs/run-step.ts';
import type { RunHooks } from './agent-graph.ts';
import type { RunEvent } from './run-events.ts';
import type { HookScope } from './run-hooks.ts';

/** The most prompt messages a model step keeps (the newest): a long conversation is not stored again with every step. */
const PROMPT_MESSAGES_KEPT = 30;

type OpenTool = { id: string; seq: number; name: string; arguments: string; startedAt: number; parentStepId: string | undefined };
type Hits = Extract<RunEvent, { type: 'knowledge-retrieved' }>;

/**
 * What one run's recorders share (the run's own agent, agents handed to, sub-agents):
 * the order of its steps and the steps later ones nest under.
 */
class RunRecording {
  seq = 0;
  /** The run's agent of the moment (it changes at a handoff): the owner of the event paths below. */
  topAgent = '';
  readonly modelSteps = new Map<string, string>();
  readonly openTools = new Map<string, OpenTool>();
  readonly hits = new Map<string, Hits>();
  readonly mcpNames = new Set<string>();

  constructor(
    readonly sink: RunStepSink,
    readonly base: Pick<RunStepRecord, 'accountId' | 'runId' | 'responseId' | 'keyId'>,
  ) {}

  key = (path: string, step: number) => `${this.topAgent}|${path}|${step}`;

  /** A sub-agent's steps nest under the `ask_` call of the agent above it. */
  parentOf(path: string): string | undefined {
    if (path === '') return undefined;
    const cut = path.lastIndexOf('/');
    return this.openTools.get(cut < 0 ? '' : path.slice(0, cut))?.id;
  }

  record(step: Omit<RunStepRecord, keyof RunRecording['base']>): void {
    try {
      this.sink.record({ ...this.base, ...step });
    } catch {
      // A step that cannot be kept is lost; the run goes on.
    }
  }

  /** Tool events of every agent in the run, seen where they reach the run's own agent (marked with `agent`, the path below it). */
  onEvent(event: RunEvent, agent: { id: string; version: string | undefined }): void {
    const path = event.agent ?? '';
    if (event.type === 'knowledge-retrieved') this.hits.set(`${this.topAgent}|${path}`, event);
    else if (event.type === 'tool-started') {
      this.openTools.set(path, {
        id: newStepId(),
        seq: this.seq++,
        name: event.name,
        arguments: event.arguments,
        startedAt: Date.now(),
        parentStepId: this.modelSteps.get(this.key(path, event.step)),
      });
    } else if (event.type === 'tool-finished') {
      const open = this.openTools.get(path);
      if (!open || open.name !== event.name) return;
      this.openTools.delete(path);
      const endedAt = Date.now();
      this.record({
        id: open.id,
        parentStepId: open.parentStepId,
        seq: open.seq,
        kind: this.toolKind(event.name),
        name: event.name,
        agentId: agentAt(path, agent.id),
        agentVersion: path === '' ? agent.version : undefined,
        agentPath: path || undefined,
        startedAt: open.startedAt,
        endedAt,
        inputTokens: 0,
        outputTokens: 0,
        costMicros: event.costMicros,
        status: event.ok ? 'ok' : 'error',
        content: () => ({ arguments: parsedArguments(open.arguments), result: event.output, duration_ms: Math.round(event.durationMs) }),
      });
    }
  }

  toolKind(name: string): RunStepKind {
    if (name.startsWith('ask_')) return 'agent';
    if (name.startsWith('transfer_to_')) return 'handoff';
    return this.mcpNames.has(name) ? 'mcp' : 'tool';
  }
}

const recordings = new WeakMap<object, RunRecording>();

const newStepId = () => `stp_${randomHex(12)}`;
const agentAt = (path: string, top: string) => (path === '' ? top : (path.split('/').at(-1) ?? top));

/** One agent's part of the recording: where its steps nest, what it is called, and the event listener of the run's own agent. */
type AgentRecorder = {
  run: RunRecording;
  scope: HookScope;
  path: string;
  listen: (given: (event: RunEvent) => void) => (event: RunEvent) => void;
  common: () => Pick<RunStepRecord, 'agentId' | 'agentVersion' | 'agentPath' | 'parentStepId'>;
};

/**
 * Wraps an agent's hooks so the run's steps are recorded as they end: retrieval with its
 * hits, each model call with its prompt and answer, each tool call, approval answers. The
 * records go to the sink (queued, written off the turn); without a sink the hooks are
 * returned as they are.
 */
export function recordRunSteps(scope: HookScope, hooks: RunHooks, sink: RunStepSink | undefined): RunHooks {
  if (!sink) return hooks;
  const recorder = agentRecorder(scope, sink);
  return { ...hooks, retrieve: recordedRetrieve(recorder, hooks), callModel: recordedModelCall(recorder, hooks), runTools: recordedTools(recorder, hooks) };
}

function agentRecorder(scope: HookScope, sink: RunStepSink): AgentRecorder {
  let run = recordings.get(scope.totals);
  if (!run) {
    run = new RunRecording(sink, { accountId: scope.context.key.accountId, runId: scope.context.agent.runId, responseId: scope.request.responseId, keyId: scope.context.key.id });
    recordings.set(scope.totals, run);
  }
  for (const tool of scope.mcpTools) run.mcpNames.add(tool.definition.name);
  const recording = run;
  const path = scope.agentPath ?? '';
  const agent = { id: scope.agent.id, version: scope.agent.version };
  // The run's own agent (and one handed to) hears every event of the run; a sub-agent's reach it through the caller.
  const owner = scope.emit === undefined;
  const listen = (given: (event: RunEvent) => void) => {
    if (!owner) return given;
    recording.topAgent = agent.id;
    return (event: RunEvent) => {
      try {
        recording.onEvent(event, agent);
      } catch {
        // Recording is a side line: the event goes on whatever happened to it.
      }
      given(event);
    };
  };
  const common = () => ({ agentId: agent.id, agentVersion: agent.version, agentPath: path || undefined, parentStepId: recording.parentOf(path) });
  return { run: recording, scope, path, listen, common };
}

function recordedRetrieve({ run, path, listen, common }: AgentRecorder, hooks: RunHooks): RunHooks['retrieve'] {
  return async (emit) => {
    const startedAt = Date.now();
    const seq = run.seq++;
    const context = await hooks.retrieve(listen(emit));
    const hitsKey = `${run.topAgent}|${path}`;
    const found = run.hits.get(hitsKey);
    run.hits.delete(hitsKey);
    if (found) {
      run.record({
        ...common(),
        id: newStepId(),
        seq,
        kind: 'retrieval',
        name: 'knowledge',
        startedAt,
        endedAt: Date.now(),
        inputTokens: 0,
        outputTokens: 0,
        costMicros: 0,
        status: 'ok',
        content: () => ({ query: found.query, hits: found.hits, context: context ?? null }),
      });
    }
    return context;
  };
}

/** A model step's tokens and cost are what the run's totals grew by during it: steps of one run never overlap. */
function recordedModelCall({ run, scope, path, listen, common }: AgentRecorder, hooks: RunHooks): RunHooks['callModel'] {
  return async (messages, step, final, emit) => {
    const listening = listen(emit);
    const id = newStepId();
    const seq = run.seq++;
    const parentStepId = run.parentOf(path);
    run.modelSteps.set(run.key(path, step), id);
    const before = { ...scope.totals.current, usage: { ...scope.totals.current.usage } };
    const startedAt = Date.now();
    let answer: AIMessage | undefined;
    try {
      answer = await hooks.callModel(messages, step, final, listening);
      return answer;
    } finally {
      const after = scope.totals.current;
      run.record({
        ...common(),
        parentStepId,
        id,
        seq,
        kind: 'model',
        name: after.model,
        startedAt,
        endedAt: Date.now(),
        inputTokens: Math.max(0, after.usage.inputTokens - before.usage.inputTokens),
        outputTokens: Math.max(0, after.usage.outputTokens - before.usage.outputTokens),
        costMicros: Math.max(0, after.modelCostMicros - before.modelCostMicros),
        status: answer ? 'ok' : 'error',
        content: () => ({ step, messages: promptOf(messages), answer: answer ? answerOf(answer) : null }),
      });
    }
  };
}

/** Tool calls are recorded from their events (see RunRecording.onEvent); the answers a person gave to approvals here. */
function recordedTools({ run, scope, path, listen, common }: AgentRecorder, hooks: RunHooks): RunHooks['runTools'] {
  return (message, step, emit, decisions, config) => {
    const listening = listen(emit);
    const answeredAt = Date.now();
    for (const call of message.tool_calls ?? []) {
      const decision = decisions[call.id ?? ''];
      if (!decision) continue;
      run.record({
        ...common(),
        parentStepId: run.modelSteps.get(run.key(path, step)) ?? run.parentOf(path),
        id: newStepId(),
        seq: run.seq++,
        kind: 'approval',
        name: call.name,
        startedAt: answeredAt,
        endedAt: answeredAt,
        inputTokens: 0,
        outputTokens: 0,
        costMicros: 0,
        status: decision.approve ? 'approved' : 'denied',
        content: () => ({ answered_by: { key_id: scope.context.key.id, key_name: scope.context.key.name }, reason: decision.reason ?? null }),
      });
    }
    return hooks.runTools(message, step, listening, decisions, config);
  };
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const ROLES: Record<string, string> = { system: 'system', human: 'user', ai: 'assistant', tool: 'tool' };

function promptOf(messages: BaseMessage[]) {
  const kept = messages.slice(-PROMPT_MESSAGES_KEPT);
  const shown = kept.map((message) => ({
    role: ROLES[message.getType()] ?? message.getType(),
    text: message.text,
    ...('tool_calls' in message && Array.isArray(message.tool_calls) && message.tool_calls.length > 0 && { tool_calls: message.tool_calls.map((call) => ({ name: call.name, arguments: call.args })) }),
  }));
  return messages.length > kept.length ? [{ role: 'note', text: `[cut: ${messages.length - kept.length} earlier messages]` }, ...shown] : shown;
}

const answerOf = (answer: AIMessage) => ({ text: answer.text, tool_calls: (answer.tool_calls ?? []).map((call) => ({ name: call.name, arguments: call.args })) });
