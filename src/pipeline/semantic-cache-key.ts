import { createHash } from 'node:crypto';
import type { CatalogModel } from '../catalog/types.ts';
import type { ModelRequest } from '../core/model-types.ts';
import { canonicalOptions, stableJson } from './response-cache-key.ts';

/** A call's place in semantic matching: the hash of everything but the conversation's text, and that text. */
export type SemanticKey = { shapeHash: string; text: string };

/** Conversations longer than this (UTF-8 bytes) are matched exactly only: an embedding model reads a bounded input. */
export const MAX_SEMANTIC_TEXT_BYTES = 24_000;

/**
 * Splits a call for semantic matching: the conversation's user and assistant text is what
 * is embedded and compared by meaning; everything else (the models that may serve it,
 * tools, sampling, response format, provider options, the system prompt and the roles of the
 * turns in order) is the "shape", hashed like the exact key and required to be equal.
 * Undefined when the conversation holds anything but text (images, files, tool calls and
 * results: their meaning is not in the text), has no text, or is too long to embed.
 */
export function semanticCacheKey(candidates: readonly CatalogModel[], request: Omit<ModelRequest, 'model'>): SemanticKey | undefined {
  const { user: _user, providerOptions, messages, ...rest } = request;
  const system: string[] = [];
  const roles: string[] = [];
  const turns: string[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      system.push(message.content);
      continue;
    }
    if (message.role === 'tool') return undefined;
    const texts: string[] = [];
    for (const part of message.content) {
      if (part.type !== 'text') return undefined;
      texts.push(part.text);
    }
    roles.push(message.role);
    turns.push(texts.join('\n'));
  }
  const text = turns.join('\n\n');
  if (text.trim().length === 0 || Buffer.byteLength(text, 'utf8') > MAX_SEMANTIC_TEXT_BYTES) return undefined;
  const shape = { models: candidates.map((model) => model.id), request: rest, options: canonicalOptions(providerOptions), system, roles };
  return { shapeHash: createHash('sha256').update(stableJson(shape)).digest('hex'), text };
}
