import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { ModelRequest, ModelStreamEvent, ToolDefinition } from '../core/model-types.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import type { ChatOutcome, ChatPipeline } from '../pipeline/chat-pipeline.ts';
import { toCanonicalMessage } from './langchain-messages.ts';

export type PipelineChatModelOptions = BaseChatModelParams & {
  pipeline: ChatPipeline;
  context: CallContext;
  model: string;
  fallbackModels?: readonly string[];
  tools: ToolDefinition[];
  settings: Pick<ModelRequest, 'temperature' | 'maxOutputTokens' | 'reasoning' | 'toolChoice' | 'responseFormat'>;
  /** Every canonical event as it arrives (the runtime streams them to the client). */
  onEvent?: (event: ModelStreamEvent) => void;
  /** Usage and cost of each finished call. */
  onOutcome?: (outcome: ChatOutcome) => void;
};

/**
 * A LangChain chat model whose every call goes through Junction's ChatPipeline, so an
 * agent's model step is authorized, limited, billed and logged exactly like a gateway
 * call. Reasoning arrives in `additional_kwargs.reasoning`; tool calls as chunks.
 */
export class PipelineChatModel extends BaseChatModel {
  readonly #options: PipelineChatModelOptions;

  constructor(options: PipelineChatModelOptions) {
    super(options);
    this.#options = options;
  }

  _llmType(): string {
    return 'junction-pipeline';
  }

  /** The step's call through the pipeline. */
  #startCall(messages: BaseMessage[]) {
    const options = this.#options;
    return options.pipeline.stream(options.context, {
      model: options.model,
      ...(options.fallbackModels && { fallbackModels: options.fallbackModels }),
      // Messages first: a literal opening with a spread gets a new hidden class per object (Node 20's V8).
      request: { messages: messages.map(toCanonicalMessage), ...options.settings, ...(options.tools.length > 0 && { tools: options.tools }) },
    });
  }

  override async *_streamResponseChunks(messages: BaseMessage[], _options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const options = this.#options;
    const call = await this.#startCall(messages);
    const ids = new Map<number, string>();
    // Reasoning blocks in order, each with its own signature; redacted blocks kept whole.
    // A provider (Anthropic) needs them back unchanged on the next step of a tool loop.
    const reasoning: ReasoningBlock[] = [];
    try {
      for await (const event of call.events) {
        options.onEvent?.(event);
        collectReasoning(reasoning, event);
        const chunk = toChunk(event, ids);
        if (!chunk) continue;
        if (event.type === 'text-delta') await runManager?.handleLLMNewToken(event.delta);
        yield new ChatGenerationChunk({ message: chunk, text: event.type === 'text-delta' ? event.delta : '' });
      }
    } catch (error) {
      // A step that broke off mid-stream was billed for what it used: the run reports the same.
      const billed = call.outcome();
      if (billed) options.onOutcome?.(billed);
      throw error;
    }
    if (reasoning.length > 0) yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: '', additional_kwargs: { reasoningBlocks: reasoning } }), text: '' });
    const outcome = call.outcome();
    if (outcome) {
      options.onOutcome?.(outcome);
      yield new ChatGenerationChunk({ message: new AIMessageChunk({ content: '', ...outcomeFields(outcome) }), text: '' });
    }
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const message = await this.#merge(messages, options, runManager);
    return { generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] };
  }

  /**
   * The answer, without LangChain's invoke machinery: the runtime's own call. `invoke`
   * builds callback managers and a langsmith run tree per call (a third of a plain turn's
   * CPU) for tracing Junction does with its own spans; the pipeline already has the signal.
   */
  async respond(messages: BaseMessage[]): Promise<AIMessage> {
    const options = this.#options;
    const call = await this.#startCall(messages);
    // The answer gathers here and becomes one AIMessageChunk at the end. A chunk per event,
    // merged one by one (as #merge does for LangChain's own invoke), costs LangChain's
    // constructors and merges 1.5 ms for 100 text deltas and 9 ms for 500 (measured): for a
    // long answer, milliseconds of every step.
    let text = '';
    const toolCalls = new Map<number, { id?: string; name?: string; args: string }>();
    const reasoning: ReasoningBlock[] = [];
    try {
      for await (const event of call.events) {
        options.onEvent?.(event);
        collectReasoning(reasoning, event);
        if (event.type === 'text-delta') text += event.delta;
        else if (event.type === 'tool-call-start') toolCalls.set(event.index, { id: event.id, name: event.name, args: '' });
        else if (event.type === 'tool-call-delta') {
          const toolCall = toolCalls.get(event.index) ?? { args: '' };
          toolCall.args += event.argumentsDelta;
          toolCalls.set(event.index, toolCall);
        }
      }
    } catch (error) {
      const billed = call.outcome();
      if (billed) options.onOutcome?.(billed);
      throw error;
    }
    const outcome = call.outcome();
    if (outcome) options.onOutcome?.(outcome);
    // The merged stream's shape: LangChain parses each tool call's arguments from its chunk.
    const merged = new AIMessageChunk({
      content: text,
      tool_call_chunks: [...toolCalls].map(([index, toolCall]) => ({ index, ...toolCall, type: 'tool_call_chunk' as const })),
      additional_kwargs: reasoning.length > 0 ? { reasoningBlocks: reasoning } : {},
      ...(outcome && outcomeFields(outcome)),
    });
    return toAIMessage(merged);
  }

  async #merge(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<AIMessage> {
    let merged: AIMessageChunk | undefined;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      merged = merged ? merged.concat(chunk.message as AIMessageChunk) : (chunk.message as AIMessageChunk);
    }
    return merged ? toAIMessage(merged) : new AIMessage('');
  }
}

type ReasoningBlock = { text: string; signature?: string; redactedData?: string };

/** A finished call's usage and cost, as the message of its step carries them. */
function outcomeFields(outcome: ChatOutcome) {
  return {
    usage_metadata: { input_tokens: outcome.usage.inputTokens, output_tokens: outcome.usage.outputTokens, total_tokens: outcome.usage.inputTokens + outcome.usage.outputTokens },
    response_metadata: { model: outcome.model.id, generationId: outcome.generationId, costMicros: outcome.costMicros },
  };
}

function collectReasoning(blocks: ReasoningBlock[], event: ModelStreamEvent): void {
  const last = blocks.at(-1);
  const open = last && last.signature === undefined && last.redactedData === undefined ? last : undefined;
  if (event.type === 'reasoning-delta') {
    if (open) open.text += event.delta;
    else blocks.push({ text: event.delta });
  } else if (event.type === 'reasoning-signature') {
    if (open) open.signature = event.signature;
    else blocks.push({ text: '', signature: event.signature });
  } else if (event.type === 'reasoning-redacted') {
    blocks.push({ text: '', redactedData: event.data });
  }
}

function toChunk(event: ModelStreamEvent, ids: Map<number, string>): AIMessageChunk | undefined {
  switch (event.type) {
    case 'text-delta':
      return new AIMessageChunk({ content: event.delta });
    case 'reasoning-delta':
      return new AIMessageChunk({ content: '', additional_kwargs: { reasoningText: event.delta } });
    case 'tool-call-start':
      ids.set(event.index, event.id);
      return new AIMessageChunk({ content: '', tool_call_chunks: [{ index: event.index, id: event.id, name: event.name, args: '', type: 'tool_call_chunk' }] });
    case 'tool-call-delta':
      return new AIMessageChunk({ content: '', tool_call_chunks: [{ index: event.index, args: event.argumentsDelta, type: 'tool_call_chunk' }] });
    default:
      return undefined;
  }
}

/**
 * Merged chunks → the AIMessage the graph keeps: the reasoning blocks become the
 * `reasoning` kwarg, and the exact argument text of each tool call is kept.
 */
export function toAIMessage(merged: AIMessageChunk): AIMessage {
  const kwargs = merged.additional_kwargs as { reasoningText?: string; reasoningBlocks?: ReasoningBlock[] };
  const reasoning = kwargs.reasoningBlocks ?? (kwargs.reasoningText ? [{ text: kwargs.reasoningText }] : []);
  const rawArguments = Object.fromEntries((merged.tool_call_chunks ?? []).flatMap((chunk) => (chunk.id ? [[chunk.id, chunk.args ?? '']] : [])));
  return new AIMessage({
    content: merged.content,
    tool_calls: merged.tool_calls ?? [],
    additional_kwargs: {
      ...(reasoning.length > 0 && { reasoning }),
      ...(Object.keys(rawArguments).length > 0 && { rawArguments }),
    },
    ...(merged.usage_metadata && { usage_metadata: merged.usage_metadata }),
    response_metadata: merged.response_metadata,
  });
}
