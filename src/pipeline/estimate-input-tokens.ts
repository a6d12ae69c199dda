import type { ModelMessage, ModelRequest } from '../core/model-types.ts';

/**
 * An upper bound of a request's input tokens, for reservations, without running a
 * tokenizer on the hot path. Byte-level BPE and SentencePiece tokenizers never make
 * more tokens than UTF-8 bytes, so text bytes bound text tokens. Images are bounded
 * per image (the providers' largest per-image cost is below 1,600 tokens at their
 * maximum resolution); inline files are estimated at one token per 3 bytes, which is
 * an estimate, not a bound (a PDF's token count depends on its pages).
 */
const PER_MESSAGE_OVERHEAD = 8;
const PER_REQUEST_OVERHEAD = 16;
const PER_IMAGE_TOKENS = 1_600;

const textBytes = (text: string): number => Buffer.byteLength(text, 'utf8');

function messageBytes(message: ModelMessage): number {
  switch (message.role) {
    case 'system':
      return textBytes(message.content);
    case 'tool':
      return textBytes(message.content) + textBytes(message.toolCallId);
    case 'user':
      return message.content.reduce((sum, part) => {
        if (part.type === 'text') return sum + textBytes(part.text);
        if (part.type === 'image') return sum + PER_IMAGE_TOKENS;
        return sum + ('data' in part ? Math.ceil((part.data.length * 3) / 4 / 3) : PER_IMAGE_TOKENS);
      }, 0);
    case 'assistant':
      return message.content.reduce((sum, part) => {
        if (part.type === 'tool-call') return sum + textBytes(part.name) + textBytes(part.arguments);
        return sum + textBytes(part.text);
      }, 0);
  }
}

export function estimateInputTokens(request: Pick<ModelRequest, 'messages' | 'tools' | 'responseFormat'>): number {
  let total = PER_REQUEST_OVERHEAD;
  for (const message of request.messages) total += PER_MESSAGE_OVERHEAD + messageBytes(message);
  if (request.tools && request.tools.length > 0) total += textBytes(JSON.stringify(request.tools));
  if (request.responseFormat?.type === 'json_schema') total += textBytes(JSON.stringify(request.responseFormat.schema));
  return total;
}
