import { describe, expect, it } from 'vitest';
import { ChatRequestSchema } from '../../../../src/gateway/chat-completions/chat-request-schema.ts';

const body = (extra: Record<string, unknown>) => ({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('chat request schema', () => {
  it('accepts the service tiers billed at (or below) catalog prices', () => {
    for (const tier of ['auto', 'default', 'flex', null]) expect(ChatRequestSchema.safeParse(body({ service_tier: tier })).success).toBe(true);
  });

  it('refuses priority and scale processing, billed upstream above catalog prices', () => {
    for (const tier of ['priority', 'scale']) expect(ChatRequestSchema.safeParse(body({ service_tier: tier })).success).toBe(false);
  });
});
