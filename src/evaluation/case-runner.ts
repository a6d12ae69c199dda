import type { AgentRuntimeDeps } from '../agents/agent-runner.ts';
import type { LoadedAgent } from '../agents/agent-registry.ts';
import { runAgent } from '../agents/agent-runtime-loader.ts';
import type { RunEvent } from '../agents/run-events.ts';
import { JunctionError } from '../core/errors.ts';
import type { ModelMessage } from '../core/model-types.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import type { CaseInput } from './case-fields.ts';
import type { CaseRun, TranscriptEntry } from './scorers/case-run.ts';

/** A case as the agent ran it, or why it did not finish (with what it did until then). */
export type CaseOutcome = { runId: string; run: CaseRun; error: string | null };

/**
 * Runs one case through the agent runtime, exactly as an Agents API call would (every
 * model step and tool through the billing pipeline under `context`), and keeps the
 * whole run, step by step, for the scorers.
 */
export async function runCase(runtime: AgentRuntimeDeps, agent: LoadedAgent, context: CallContext, input: CaseInput): Promise<CaseOutcome> {
  const { history, turn } = caseMessages(input);
  const transcript: TranscriptEntry[] = [...history, ...turn].flatMap(inputEntry);
  const started = performance.now();
  const run = runAgent(runtime, { agent, context, history, input: turn });
  const texts = new Map<string, string>();
  let error: string | null = null;
  try {
    for await (const event of run.events) record(event, transcript, texts);
  } catch (caught) {
    error = caught instanceof JunctionError ? `${caught.code}: ${caught.message}` : (caught as Error).message;
  }
  const latencyMs = Math.round(performance.now() - started);
  const result = run.result();
  const totals = run.totals();
  const costMicros = result?.costMicros ?? (totals ? totals.modelCostMicros + totals.toolCostMicros : 0);
  if (!error && result?.pendingApprovals) error = 'the run paused for an approval, which an evaluation cannot give';
  const answer = result ? lastAnswer(result.messages) : '';
  return { runId: run.runId, run: { answer, transcript, latencyMs, costMicros }, error };
}

/** The conversation so far as history, and its last user message as the turn the agent answers. */
export function caseMessages(input: CaseInput): { history: ModelMessage[]; turn: ModelMessage[] } {
  if (typeof input === 'string') return { history: [], turn: [{ role: 'user', content: [{ type: 'text', text: input }] }] };
  const lastUser = input.map((message) => message.role).lastIndexOf('user');
  const toMessage = (message: (typeof input)[number]): ModelMessage => {
    if (message.role === 'system') return { role: 'system', content: message.content };
    if (message.role === 'user') return { role: 'user', content: [{ type: 'text', text: message.content }] };
    return { role: 'assistant', content: [{ type: 'text', text: message.content }] };
  };
  return { history: input.slice(0, lastUser).map(toMessage), turn: input.slice(lastUser, lastUser + 1).map(toMessage) };
}

function inputEntry(message: ModelMessage): TranscriptEntry[] {
  if (message.role === 'system') return [{ kind: 'input', role: 'system', text: message.content }];
  if (message.role === 'tool') return [];
  const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  return [{ kind: 'input', role: message.role, text }];
}

/** Adds what the event says to the transcript; model text is gathered per agent and step, and written when the step ends. */
function record(event: RunEvent, transcript: TranscriptEntry[], texts: Map<string, string>): void {
  const by = event.agent === undefined ? {} : { agent: event.agent };
  const stepKey = (step: number) => `${event.agent ?? ''}#${step}`;
  switch (event.type) {
    case 'knowledge-retrieved':
      transcript.push({ kind: 'retrieval', query: event.query, hits: event.hits.map((hit) => ({ source: hit.source, title: hit.title })), ...by });
      return;
    case 'model-event':
      if (event.event.type === 'text-delta') texts.set(stepKey(event.step), (texts.get(stepKey(event.step)) ?? '') + event.event.delta);
      return;
    case 'model-finished': {
      const text = texts.get(stepKey(event.step));
      texts.delete(stepKey(event.step));
      if (text) transcript.push({ kind: 'answer', text, ...by });
      return;
    }
    case 'tool-started':
      transcript.push({ kind: 'tool-call', name: event.name, arguments: event.arguments, ...by });
      return;
    case 'tool-finished':
      transcript.push({ kind: 'tool-result', name: event.name, ok: event.ok, output: event.output, ...by });
      return;
    case 'model-started':
      return;
  }
}

function lastAnswer(messages: readonly ModelMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role !== 'assistant') continue;
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    if (text !== '') return text;
  }
  return '';
}
