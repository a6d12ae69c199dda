import { describe, expect, it } from 'vitest';
import { parseAgentReference } from '../../../src/agents/agent-pinning.ts';
import type { LoadedAgent } from '../../../src/agents/agent-registry.ts';
import { releaseBucket, servingFor } from '../../../src/agents/release-selection.ts';
import { lineDiff } from '../../../src/console/line-diff.ts';

const agent = (version: string): LoadedAgent => ({
  id: 'support',
  file: 'console:account/support',
  config: { name: 'Support' } as LoadedAgent['config'],
  instructions: version,
  version,
  updatedAt: new Date(0),
});

/** The conversations `conv_0` … `conv_199` whose bucket of sha256("support\0" + id) is below 10. */
const STAGED_OF_200 = 21;

describe('staged release selection', () => {
  const conversations = Array.from({ length: 200 }, (_, index) => `conv_${index}`);

  it('puts a fixed set of conversations in a 10% share, the same on every call', () => {
    const staged = { ...agent('v1'), release: { share: 10, agent: agent('v2') } };
    const served = conversations.map((id) => servingFor(staged, id).version);
    expect(served.filter((version) => version === 'v2').length).toBe(STAGED_OF_200);
    expect(conversations.map((id) => servingFor(staged, id).version)).toEqual(served);
    // The staged agent carries no release of its own.
    expect(servingFor(staged, conversations[served.indexOf('v2')] ?? '').release).toBeUndefined();
  });

  it('keeps a conversation in the share when the share grows', () => {
    const inTen = conversations.filter((id) => releaseBucket('support', id) < 10);
    const atFifty = { ...agent('v1'), release: { share: 50, agent: agent('v2') } };
    expect(inTen.every((id) => servingFor(atFifty, id).version === 'v2')).toBe(true);
  });

  it('serves the published version without a release', () => {
    expect(conversations.every((id) => servingFor(agent('v1'), id).version === 'v1')).toBe(true);
  });
});

describe('agent references', () => {
  it('splits the id from the version at the last @', () => {
    expect(parseAgentReference('support')).toEqual({ id: 'support', selector: undefined });
    expect(parseAgentReference('support@3')).toEqual({ id: 'support', selector: '3' });
    expect(parseAgentReference('support@latest')).toEqual({ id: 'support', selector: 'latest' });
    expect(parseAgentReference('a@b@published')).toEqual({ id: 'a@b', selector: 'published' });
  });
});

describe('line diff', () => {
  it('marks removed and added lines around the common ones', () => {
    expect(lineDiff('name: A\nmodel: m\ninstructions: one\n', 'name: A\nmodel: m\ninstructions: two\ntools: []\n')).toEqual([
      { kind: 'same', text: 'name: A' },
      { kind: 'same', text: 'model: m' },
      { kind: 'removed', text: 'instructions: one' },
      { kind: 'added', text: 'instructions: two' },
      { kind: 'added', text: 'tools: []' },
    ]);
    expect(lineDiff('a\nb\n', 'a\nb\n').every((line) => line.kind === 'same')).toBe(true);
  });
});
