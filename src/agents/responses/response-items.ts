import { randomHex } from '../../core/random-hex.ts';

/**
 * Output items and streaming events in the Open Responses wire shape (snake_case on
 * purpose: these objects are the wire). Only what an agent run produces is typed.
 * Server-side tool steps use the spec's own `function_call` / `function_call_output`
 * items: the schema's `ItemField` union is closed, so a `junction:` extension item
 * would make `output` invalid, and a client tells server steps apart by the tool name
 * (it did not declare that tool).
 */

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export type OutputTextPart = { type: 'output_text'; text: string; annotations: [] };
export type ReasoningTextPart = { type: 'reasoning_text'; text: string };

/** `phase`: text the model wrote before calling tools is `commentary`; the answer is `final_answer`. */
export type MessageItem = { type: 'message'; id: string; status: ItemStatus; role: 'assistant'; content: OutputTextPart[]; phase?: 'commentary' | 'final_answer' };
export type ReasoningItem = { type: 'reasoning'; id: string; summary: []; content: ReasoningTextPart[] };
/** `agent`: set on the tool steps a sub-agent took (its id, or a path for nested agents). */
export type FunctionCallItem = { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: ItemStatus; agent?: string };
export type FunctionCallOutputItem = { type: 'function_call_output'; id: string; call_id: string; output: string; status: ItemStatus; agent?: string };

/**
 * A server tool call waiting for a person (Open Responses extension item: provider prefix).
 * The response completes with it last; the caller answers with a `junction:approval_response`.
 */
export type ApprovalRequestItem = { type: 'junction:approval_request'; id: string; status: 'completed'; call_id: string; name: string; arguments: string };

export type OutputItem = MessageItem | ReasoningItem | FunctionCallItem | FunctionCallOutputItem | ApprovalRequestItem;

export type StreamEvent = { type: string; sequence_number: number } & Record<string, unknown>;

const randomId = (prefix: string) => `${prefix}_${randomHex(16)}`;
export const newItemId = {
  message: () => randomId('msg'),
  reasoning: () => randomId('rs'),
  functionCall: () => randomId('fc'),
  functionCallOutput: () => randomId('fco'),
  approvalRequest: () => randomId('apr'),
};
