import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { AssistantPart, ModelMessage, UserPart } from '../core/model-types.ts';
import { parseToolArguments } from '../core/tool-arguments.ts';

/**
 * Canonical messages ⇄ LangChain messages. The graph's state is LangChain messages
 * (what LangGraph nodes and chat models exchange); the pipeline and the conversation
 * store speak canonical messages. Reasoning and exact tool-call argument text ride in
 * `additional_kwargs`, so a round trip loses nothing the pipeline needs.
 */
type ReasoningKwargs = { reasoning?: Array<{ text: string; signature?: string; redactedData?: string }>; rawArguments?: Record<string, string> };

function userContent(parts: readonly UserPart[]): HumanMessage['content'] {
  if (parts.length === 1 && parts[0]?.type === 'text') return parts[0].text;
  return parts.map((part) => {
    if (part.type === 'text') return { type: 'text' as const, text: part.text };
    if (part.type === 'image') return { type: 'image_url' as const, image_url: { url: 'url' in part ? part.url : `data:${part.mediaType};base64,${part.data}` } };
    return { type: 'file' as const, mediaType: part.mediaType, ...('data' in part ? { data: part.data } : { url: part.url }) };
  });
}

export function toLangChainMessage(message: ModelMessage): BaseMessage {
  switch (message.role) {
    case 'system':
      return new SystemMessage(message.content);
    case 'user':
      return new HumanMessage({ content: userContent(message.content) });
    case 'tool':
      return new ToolMessage({ content: message.content, tool_call_id: message.toolCallId, ...(message.name && { name: message.name }), status: message.isError ? 'error' : 'success' });
    case 'assistant': {
      const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      const calls = message.content.flatMap((part) => (part.type === 'tool-call' ? [part] : []));
      const reasoning = message.content.flatMap((part) =>
        part.type === 'reasoning' ? [{ text: part.text, ...(part.signature && { signature: part.signature }), ...(part.redactedData && { redactedData: part.redactedData }) }] : [],
      );
      const kwargs: ReasoningKwargs = { ...(reasoning.length > 0 && { reasoning }), ...(calls.length > 0 && { rawArguments: Object.fromEntries(calls.map((call) => [call.id, call.arguments])) }) };
      return new AIMessage({
        content: text,
        tool_calls: calls.map((call) => ({ id: call.id, name: call.name, args: parseToolArguments(call.arguments), type: 'tool_call' as const })),
        additional_kwargs: kwargs,
      });
    }
  }
}

const contentText = (content: BaseMessage['content']): string =>
  typeof content === 'string' ? content : content.map((part) => (typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : '')).join('');

export function toCanonicalMessage(message: BaseMessage): ModelMessage {
  const type = message.getType();
  if (type === 'system') return { role: 'system', content: contentText(message.content) };
  if (type === 'tool') {
    const tool = message as ToolMessage;
    return { role: 'tool', toolCallId: tool.tool_call_id, content: contentText(tool.content), ...(tool.name && { name: tool.name }), ...(tool.status === 'error' && { isError: true }) };
  }
  if (type === 'ai') {
    const ai = message as AIMessage;
    const kwargs = ai.additional_kwargs as ReasoningKwargs;
    const parts: AssistantPart[] = (kwargs.reasoning ?? []).map((entry) => ({ type: 'reasoning', ...entry }));
    const text = contentText(ai.content);
    if (text) parts.push({ type: 'text', text });
    for (const call of ai.tool_calls ?? []) {
      const id = call.id ?? '';
      parts.push({ type: 'tool-call', id, name: call.name, arguments: kwargs.rawArguments?.[id] ?? JSON.stringify(call.args) });
    }
    return { role: 'assistant', content: parts };
  }
  const content = message.content;
  if (typeof content === 'string') return { role: 'user', content: [{ type: 'text', text: content }] };
  return {
    role: 'user',
    content: content.map((part): UserPart => {
      const block = part as Record<string, unknown>;
      if (block.type === 'image_url') {
        const image = block.image_url as { url: string } | string;
        return { type: 'image', url: typeof image === 'string' ? image : image.url };
      }
      if (block.type === 'file' && typeof block.mediaType === 'string') {
        return typeof block.data === 'string' ? { type: 'file', mediaType: block.mediaType, data: block.data } : { type: 'file', mediaType: block.mediaType, url: String(block.url) };
      }
      return { type: 'text', text: typeof block.text === 'string' ? block.text : '' };
    }),
  };
}
