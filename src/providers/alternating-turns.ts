import type { ModelMessage } from '../core/model-types.ts';

export type Turn<Block> = { role: 'user' | 'assistant'; content: Block[] };

/**
 * Chat-style messages → alternating user/assistant turns, tool results riding in user turns.
 * Anthropic and Bedrock's Converse refuse two turns of one role in a row: merging keeps the
 * results of parallel tool calls (several canonical tool messages) in the one user turn they expect.
 */
export function alternatingTurns<Block>(messages: ModelMessage[], blocksOf: (message: Exclude<ModelMessage, { role: 'system' }>) => Block[]): Turn<Block>[] {
  const turns: Turn<Block>[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = blocksOf(message);
    if (blocks.length === 0) continue;
    const previous = turns.at(-1);
    if (previous !== undefined && previous.role === role) previous.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  return turns;
}
