import { createParser } from 'eventsource-parser';
import { currentCsrfToken } from '../../api/client.ts';

/** One step of a run as the playground draws it, built from the Open Responses events. */
export type DrawnStep =
  | { kind: 'reasoning'; id: string; text: string }
  /** `server`: a step the server ran (its run records it); otherwise a call the client must run. */
  | { kind: 'tool'; id: string; callId: string; name: string; arguments: string; result: string | undefined; server: boolean }
  | { kind: 'text'; id: string; text: string };

export type RunSummary = { responseId: string; status: string; inputTokens: number; outputTokens: number; costUsd: number | undefined; agentVersion: string | undefined };

type Item = { type?: string; id?: string; call_id?: string; name?: string; arguments?: string; output?: string | null; server_label?: string };

/** A step the server ran: one item carrying the call and, once done, its result. */
const isServerCall = (item: Item | undefined): item is Item & { type: 'junction:tool_call' | 'mcp_call' } => item?.type === 'junction:tool_call' || item?.type === 'mcp_call';
const serverCallName = (item: Item) => (item.type === 'mcp_call' ? `${item.server_label ?? ''}: ${item.name ?? ''}` : (item.name ?? ''));
type StreamEvent = {
  type?: string;
  item?: Item;
  item_id?: string;
  delta?: string;
  response?: { id?: string; status?: string; agent_version?: string; usage?: { input_tokens?: number; output_tokens?: number; cost?: number } };
  error?: { message?: string };
};

/** Draws a run's stream events as steps, calling `onSteps` with a copy whenever what is drawn changes; `outcome` says how the run ended. */
function eventDrawer(onSteps: (steps: DrawnStep[]) => void) {
  const steps: DrawnStep[] = [];
  const byCall = new Map<string, Extract<DrawnStep, { kind: 'tool' }>>();
  const outcome: { summary?: RunSummary; failure?: string } = {};
  const changed = () => onSteps(steps.map((step) => ({ ...step })));

  const handle = (event: StreamEvent) => {
    const item = event.item;
    switch (event.type) {
      case 'response.output_item.added':
        if (item?.type === 'reasoning') steps.push({ kind: 'reasoning', id: item.id ?? '', text: '' });
        else if (item?.type === 'message') steps.push({ kind: 'text', id: item.id ?? '', text: '' });
        else if (isServerCall(item)) {
          const step = { kind: 'tool' as const, id: item.id ?? '', callId: item.id ?? '', name: serverCallName(item), arguments: item.arguments ?? '', result: undefined, server: true };
          steps.push(step);
          byCall.set(step.callId, step);
        } else if (item?.type === 'function_call') {
          const step = { kind: 'tool' as const, id: item.id ?? '', callId: item.call_id ?? '', name: item.name ?? '', arguments: item.arguments ?? '', result: undefined, server: false };
          steps.push(step);
          byCall.set(step.callId, step);
        } else if (item?.type === 'function_call_output') {
          const call = byCall.get(item.call_id ?? '');
          if (call) call.result = item.output ?? '';
        }
        break;
      case 'response.output_item.done':
        if (isServerCall(item)) {
          const call = byCall.get(item.id ?? '');
          if (call) {
            call.arguments = item.arguments ?? call.arguments;
            call.result = item.output ?? undefined;
          }
        } else if (item?.type === 'function_call') {
          const call = byCall.get(item.call_id ?? '');
          if (call) call.arguments = item.arguments ?? call.arguments;
        } else if (item?.type === 'function_call_output') {
          const call = byCall.get(item.call_id ?? '');
          if (call) call.result = item.output ?? '';
        }
        break;
      case 'response.output_text.delta':
      case 'response.reasoning.delta': {
        const step = steps.find((candidate) => candidate.id === event.item_id);
        if (step && step.kind !== 'tool') step.text += event.delta ?? '';
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const usage = event.response?.usage;
        outcome.summary = {
          responseId: event.response?.id ?? '',
          status: event.response?.status ?? event.type.slice('response.'.length),
          inputTokens: usage?.input_tokens ?? 0,
          outputTokens: usage?.output_tokens ?? 0,
          costUsd: usage?.cost,
          agentVersion: event.response?.agent_version,
        };
        break;
      }
      case 'error':
        outcome.failure = event.error?.message ?? 'The run failed.';
        break;
      default:
        return;
    }
    changed();
  };
  return { handle, outcome };
}

/**
 * Runs the agent through `POST /agents/v1/responses` with `stream: true` and the
 * console session (no key), calling `onSteps` as each semantic event changes what is
 * drawn: reasoning, each tool call with its arguments and then its result, the text.
 */
export async function streamResponse(
  request: { model: string; input: string; previousResponseId: string | null; conversationId?: string | undefined },
  onSteps: (steps: DrawnStep[]) => void,
  signal?: AbortSignal,
): Promise<RunSummary> {
  const response = await fetch('/agents/v1/responses', {
    method: 'POST',
    credentials: 'same-origin',
    ...(signal && { signal }),
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-csrf-token': currentCsrfToken() },
    body: JSON.stringify({
      model: request.model,
      input: request.input,
      stream: true,
      ...(request.previousResponseId ? { previous_response_id: request.previousResponseId } : request.conversationId && { conversation: request.conversationId }),
    }),
  });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
    throw new Error(body.error?.message ?? `The run failed (${response.status})`);
  }
  const drawer = eventDrawer(onSteps);

  const parser = createParser({
    onEvent: (message) => {
      try {
        drawer.handle(JSON.parse(message.data) as StreamEvent);
      } catch {
        // A frame that is not JSON is not an event we draw.
      }
    },
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parser.feed(decoder.decode(chunk.value, { stream: true }));
  const { failure, summary } = drawer.outcome;
  if (failure) throw new Error(failure);
  if (!summary) throw new Error('The stream ended before the response completed.');
  return summary;
}

/** A new, empty conversation for the playground to fill: its id is known before the first answer, so a reload finds it. */
export async function createConversation(): Promise<string> {
  const response = await fetch('/agents/v1/conversations', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': currentCsrfToken() },
    body: JSON.stringify({}),
  });
  const body = (await response.json().catch(() => ({}))) as { id?: string; error?: { message?: string } };
  if (!response.ok || !body.id) throw new Error(body.error?.message ?? `Could not start a conversation (${response.status})`);
  return body.id;
}
