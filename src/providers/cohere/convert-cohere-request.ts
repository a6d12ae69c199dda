import { JunctionError } from '../../core/errors.ts';
import type { AssistantMessage, ModelMessage, ModelRequest, ReasoningConfig, UserPart } from '../../core/model-types.ts';
import type { CohereChatBody, CohereContentPart, CohereMessage, CohereTool, CohereToolCall } from './cohere-wire-schemas.ts';
import { imageUrlPart } from '../openai/convert-chat-request.ts';

/**
 * Canonical request → Cohere v2 chat body. Lossy cases (documented in docs/gateway.md):
 * `user`, `parallelToolCalls`, cache-control hints and the reasoning text of earlier turns
 * without tool calls have no Cohere counterpart and are dropped; a named tool choice sends
 * that tool alone with `REQUIRED` (Cohere cannot name one); a reasoning part of an assistant
 * turn with tool calls goes back as its `tool_plan`; a json_schema format sends its schema
 * as `json_object`'s `json_schema`.
 */
export function convertCohereRequest(request: ModelRequest, stream: boolean): CohereChatBody {
  const body: CohereChatBody = { model: request.model, messages: request.messages.map(convertMessage), stream };
  const named = typeof request.toolChoice === 'object' ? request.toolChoice.name : undefined;
  const tools = (request.tools ?? []).filter((tool) => named === undefined || tool.name === named);
  if (tools.length > 0) {
    body.tools = tools.map(
      (tool): CohereTool => ({ type: 'function', function: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), parameters: tool.parameters } }),
    );
    if (tools.some((tool) => tool.strict === true)) body.strict_tools = true;
    if (request.toolChoice === 'required' || named !== undefined) body.tool_choice = 'REQUIRED';
    else if (request.toolChoice === 'none') body.tool_choice = 'NONE';
  }
  const format = request.responseFormat;
  if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') body.response_format = { type: 'json_object', json_schema: format.schema };
  if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.p = request.topP;
  if (request.topK !== undefined) body.k = request.topK;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = request.stop;
  const thinking = convertReasoning(request.reasoning);
  if (thinking !== undefined) body.thinking = thinking;
  // Fields like safety_mode, documents or citation_options; they never replace the model, the messages or stream.
  const verbatim = request.providerOptions?.['cohere'];
  if (verbatim !== undefined) {
    for (const key of Object.keys(verbatim)) {
      if (key !== 'model' && key !== 'messages' && key !== 'stream' && key !== '__proto__') body[key] = verbatim[key];
    }
  }
  return body;
}

function convertMessage(message: ModelMessage): CohereMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      if (message.content.length === 1 && message.content[0]?.type === 'text') return { role: 'user', content: message.content[0].text };
      return { role: 'user', content: message.content.map(convertUserPart) };
    case 'assistant':
      return convertAssistantMessage(message);
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function convertUserPart(part: UserPart): CohereContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return imageUrlPart(part);
    case 'file':
      // Cohere takes documents as the request's `documents`, not inside a message.
      throw new JunctionError('invalid_request', 'Cohere does not accept files inside messages; send their text, or `documents` for Cohere', { param: 'messages' });
  }
}

function convertAssistantMessage(message: AssistantMessage): CohereMessage {
  let text = '';
  let plan = '';
  const toolCalls: CohereToolCall[] = [];
  for (const part of message.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') plan += part.text;
    else toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
  }
  if (toolCalls.length === 0) return { role: 'assistant', content: text };
  return { role: 'assistant', ...(text === '' ? {} : { content: text }), ...(plan === '' ? {} : { tool_plan: plan }), tool_calls: toolCalls };
}

/** Cohere's reasoning models take `thinking`; a budget or an explicit switch sets it, an effort alone does not. */
function convertReasoning(reasoning: ReasoningConfig | undefined): CohereChatBody['thinking'] {
  if (reasoning === undefined) return undefined;
  if (reasoning.enabled === false) return { type: 'disabled' };
  if (reasoning.budgetTokens !== undefined) return { type: 'enabled', token_budget: reasoning.budgetTokens };
  return reasoning.enabled === true ? { type: 'enabled' } : undefined;
}
