import { describe, expect, it } from 'vitest';
import { AgentConfigSchema, ConsoleAgentConfigSchema } from '../../../src/agents/agent-config-schema.ts';
import { toAgentFile } from '../../../src/agents/agent-file-format.ts';

const agent = { name: 'Support', model: 'openai/test-echo', instructions: 'Help.' };

describe('scorers declared beside the agent', () => {
  it('reads a scorers list from an agent file and a console definition, and writes it back', () => {
    const scorers = [
      { type: 'contains', value: 'refund' },
      { type: 'judge', name: 'polite', rubric: 'Is "polite".' },
      { type: 'latency', max_ms: 5000 },
    ];
    const file = AgentConfigSchema.parse({ ...agent, scorers });
    expect(file.scorers).toEqual(scorers);
    const console = ConsoleAgentConfigSchema.parse({ ...agent, scorers });
    expect(console.scorers).toEqual(scorers);
    expect(toAgentFile({ config: console, instructions: 'Help.' }).scorers).toEqual(scorers);
  });

  it('leaves an agent without scorers as it was', () => {
    expect(AgentConfigSchema.parse(agent).scorers).toBeUndefined();
    expect(toAgentFile({ config: AgentConfigSchema.parse(agent), instructions: 'Help.' })).not.toHaveProperty('scorers');
  });

  it('refuses an unknown scorer type or field, naming where', () => {
    const unknownType = AgentConfigSchema.safeParse({ ...agent, scorers: [{ type: 'vibes' }] });
    expect(unknownType.success).toBe(false);
    expect(unknownType.error?.issues[0]?.path).toEqual(['scorers', 0, 'type']);
    const unknownField = ConsoleAgentConfigSchema.safeParse({ ...agent, scorers: [{ type: 'judge', rubric: 'x', temprature: 1 }] });
    expect(unknownField.success).toBe(false);
  });
});
