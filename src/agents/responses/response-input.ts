import { JunctionError } from '../../core/errors.ts';
import type { AssistantPart, ModelMessage, UserPart } from '../../core/model-types.ts';
import { mcpToolName } from '../mcp/mcp-server-config.ts';
import { type CreateResponseRequest, type InputItem, InputItemSchema } from './response-request-schema.ts';

/**
 * Input items → the new turn as canonical messages. System and developer messages
 * join the request's instructions (for this request only, as the chat endpoint does
 * with system messages). Consecutive assistant-side items (assistant message,
 * reasoning, function_call) form one assistant message, as a model produced them.
 */
export type RunInput = { messages: ModelMessage[]; instructions: string[] };

export type InputContext = {
  /** The conversation so far: tool results need the name of the call they answer. */
  history: readonly ModelMessage[];
  /** Items an `item_reference` may name: the previous response's output, by id. */
  references: ReadonlyMap<string, Record<string, unknown>>;
  /** Opens a `compaction` item's sealed summary (a 400 naming `param` when it is not this account's). */
  openCompaction?: (encrypted: string, param: string) => string;
};

/** How a compaction's summary reads in the conversation the model sees. */
export const COMPACTION_PREFIX = 'Summary of our conversation so far (compacted):\n\n';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export function toRunInput(input: CreateResponseRequest['input'], context: InputContext): RunInput {
  const items = input.map((item, index) => ({ item: resolveReference(item, index, context.references), param: `input.${index}` }));

  const messages: ModelMessage[] = [];
  const instructions: string[] = [];
  const toolNames = new Map<string, string>();
  for (const message of context.history) {
    if (message.role === 'assistant') for (const part of message.content) if (part.type === 'tool-call') toolNames.set(part.id, part.name);
  }
  let assistant: AssistantPart[] | undefined;
  const flushAssistant = () => {
    // Reasoning alone says nothing to continue from.
    if (assistant?.some((part) => part.type !== 'reasoning')) messages.push({ role: 'assistant', content: assistant });
    assistant = undefined;
  };

  for (const { item, param } of items) {
    switch (item.type) {
      case 'message':
        if (item.role === 'assistant') {
          const text = typeof item.content === 'string' ? item.content : item.content.map((part) => (part.type === 'output_text' ? part.text : part.refusal)).join('');
          (assistant ??= []).push({ type: 'text', text });
          continue;
        }
        flushAssistant();
        if (item.role === 'user') messages.push({ role: 'user', content: userParts(item.content, `${param}.content`) });
        else instructions.push(typeof item.content === 'string' ? item.content : item.content.map((part) => part.text).join(''));
        continue;
      case 'reasoning':
        (assistant ??= []).push({ type: 'reasoning', text: item.summary.map((part) => part.text).join('\n') });
        continue;
      case 'function_call':
        toolNames.set(item.call_id, item.name);
        (assistant ??= []).push({ type: 'tool-call', id: item.call_id, name: item.name, arguments: item.arguments });
        continue;
      case 'function_call_output': {
        flushAssistant();
        const name = toolNames.get(item.call_id);
        if (name === undefined) {
          throw new JunctionError('invalid_request', `No function_call with call_id '${item.call_id}' in this response's context to answer.`, { param: `${param}.call_id` });
        }
        messages.push({ role: 'tool', toolCallId: item.call_id, name, content: toolOutputText(item.output, `${param}.output`) });
        continue;
      }
      case 'compaction':
        // The earlier context, as the agent's model summarised it: a user turn, so it is stored and continued like one.
        flushAssistant();
        if (!context.openCompaction) throw new JunctionError('invalid_request', 'Compaction items are not accepted here.', { param });
        messages.push({ role: 'user', content: [{ type: 'text', text: `${COMPACTION_PREFIX}${context.openCompaction(item.encrypted_content, `${param}.encrypted_content`)}` }] });
        continue;
      case 'junction:approval_response':
      case 'mcp_approval_response':
        // Not a message: it resumes the paused run (response-approvals.ts).
        continue;
      case 'mcp_list_tools':
      case 'mcp_approval_request':
        continue;
      case 'mcp_call':
      case 'junction:tool_call': {
        // A step the server ran, sent back as history: the call and its result, as they happened.
        // A sub-agent's steps (`agent` set) stay its own: their caller's history has the agent's answer.
        if (item.output == null || typeof item['agent'] === 'string') continue;
        const callId = item.type === 'mcp_call' ? (item.id ?? `mcp_${messages.length}`) : item.call_id;
        const name = item.type === 'mcp_call' ? mcpToolName(item.server_label, item.name) : item.name;
        toolNames.set(callId, name);
        (assistant ??= []).push({ type: 'tool-call', id: callId, name, arguments: item.arguments });
        flushAssistant();
        messages.push({ role: 'tool', toolCallId: callId, name, content: item.output });
        continue;
      }
      case 'item_reference':
        // Resolved above; a reference to a reference cannot be stored.
        throw new JunctionError('invalid_request', `Item reference '${item.id}' cannot be resolved.`, { param });
    }
  }
  flushAssistant();
  return { messages, instructions };
}

/**
 * An `item_reference` names an item of the previous response's output (the only
 * response the request is tied to); its stored wire form is read back as an input item.
 */
function resolveReference(item: InputItem, index: number, references: InputContext['references']): InputItem {
  if (item.type !== 'item_reference') return item;
  const stored = references.get(item.id);
  const param = `input.${index}.id`;
  if (!stored) throw new JunctionError('invalid_request', `No item '${item.id}' in the previous response's output.`, { param });
  const asInput = stored.type === 'reasoning' ? { type: 'reasoning', id: stored.id, summary: reasoningSummary(stored) } : stored;
  const parsed = InputItemSchema.safeParse(asInput);
  if (!parsed.success || parsed.data.type === 'item_reference') throw new JunctionError('invalid_request', `Item '${item.id}' cannot be used as input.`, { param });
  return parsed.data;
}

/** Our reasoning items carry raw reasoning as `content`; as input it becomes one summary text. */
function reasoningSummary(stored: Record<string, unknown>) {
  const content = Array.isArray(stored.content) ? stored.content : [];
  const text = content.map((part: unknown) => (typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '')).join('');
  return [{ type: 'summary_text', text }];
}

type UserContent = Extract<InputItem, { type: 'message'; role: 'user' }>['content'];

function userParts(content: UserContent, param: string): UserPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part, index): UserPart => {
    const at = `${param}.${index}`;
    if (part.type === 'input_text') return { type: 'text', text: part.text };
    if (part.type === 'input_image') {
      if (!part.image_url) throw new JunctionError('invalid_request', 'input_image needs image_url (an https or data: URL; file ids are not supported).', { param: `${at}.image_url` });
      return { type: 'image', url: part.image_url, ...(part.detail && { detail: part.detail }) };
    }
    const filename = part.filename ?? undefined;
    if (part.file_data) {
      const match = DATA_URL.exec(part.file_data);
      if (!match?.[1] || match[2] === undefined) throw new JunctionError('invalid_request', 'file_data must be a base64 data URL (data:<media type>;base64,…).', { param: `${at}.file_data` });
      return { type: 'file', mediaType: match[1], data: match[2], ...(filename && { filename }) };
    }
    if (part.file_url) return { type: 'file', url: part.file_url, mediaType: mediaTypeOf(filename ?? part.file_url), ...(filename && { filename }) };
    throw new JunctionError('invalid_request', 'input_file needs file_data or file_url.', { param: at });
  });
}

const TEXT_MEDIA_TYPES = new Map([
  ['txt', 'text/plain'],
  ['md', 'text/markdown'],
  ['csv', 'text/csv'],
]);

const mediaTypeOf = (name: string): string => {
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(name)?.[1]?.toLowerCase();
  return TEXT_MEDIA_TYPES.get(extension ?? '') ?? 'application/pdf';
};

/** Tool results are text to every provider; image or file outputs are refused rather than dropped. */
function toolOutputText(output: Extract<InputItem, { type: 'function_call_output' }>['output'], param: string): string {
  if (typeof output === 'string') return output;
  return output
    .map((part, index) => {
      if (part.type === 'input_text') return part.text;
      throw new JunctionError('invalid_request', 'Only text function_call_output content is supported.', { param: `${param}.${index}` });
    })
    .join('');
}
