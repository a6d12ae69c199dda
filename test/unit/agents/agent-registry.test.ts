import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgentRegistry, type AgentConfigError, type AgentRegistry } from '../../../src/agents/agent-registry.ts';
import { createBuiltinTools } from '../../../src/tools/builtin/builtin-tools.ts';
import { createToolRegistry } from '../../../src/tools/tool-registry.ts';
import { withTempDir } from '../tools/tool-test-helpers.ts';

const MODELS = new Set(['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5']);
const TOOLS = new Set(['calculator', 'knowledge_search', 'current_time']);

const SUPPORT = `
name: Support
model: openai/gpt-4o-mini
fallback_models: [anthropic/claude-sonnet-4-5]
instructions_file: prompts/support.md
tools: [knowledge_search, calculator]
knowledge: [handbook]
temperature: 0.2
max_output_tokens: 500
reasoning: { effort: low }
`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(files: Record<string, string>, options: { watch?: boolean } = {}) {
  const dir = await withTempDir('agents');
  cleanups.push(dir.remove);
  const agentsDir = join(dir.path, 'agents');
  const knowledgeDir = join(dir.path, 'knowledge');
  await mkdir(join(agentsDir, 'prompts'), { recursive: true });
  await mkdir(join(knowledgeDir, 'handbook'), { recursive: true });
  for (const [name, content] of Object.entries(files)) await writeFile(join(agentsDir, name), content);
  const errors: AgentConfigError[] = [];
  const warnings: string[] = [];
  const registry: AgentRegistry = await createAgentRegistry({
    agentsDir,
    knowledgeDir,
    tools: { has: (name) => TOOLS.has(name) },
    isKnownModel: (id) => MODELS.has(id),
    watch: options.watch ?? false,
    debounceMs: 20,
    onError: (error) => errors.push(error),
    onWarning: (file, issues) => warnings.push(...issues.map((issue) => `${basename(file)}: ${issue.path}: ${issue.message}`)),
  });
  cleanups.push(() => registry.close());
  return { agentsDir, knowledgeDir, registry, errors, warnings };
}

const minimal = (extra: string) => `name: A\nmodel: openai/gpt-4o-mini\ninstructions: Be helpful.\n${extra}`;

describe('agent registry', () => {
  it('loads a valid agent, resolving instructions_file, with a version and updatedAt', async () => {
    const { registry, errors } = await setup({ 'support.yaml': SUPPORT, 'prompts/support.md': 'You help customers.\n' });
    expect(errors).toEqual([]);
    const agent = registry.get('support');
    expect(agent?.instructions).toBe('You help customers.');
    expect(agent?.config).toEqual({
      name: 'Support',
      description: '',
      model: 'openai/gpt-4o-mini',
      fallbackModels: ['anthropic/claude-sonnet-4-5'],
      instructions: undefined,
      instructionsFile: 'prompts/support.md',
      tools: ['knowledge_search', 'calculator'],
      knowledge: ['handbook'],
      temperature: 0.2,
      maxOutputTokens: 500,
      reasoning: { effort: 'low' },
      maxSteps: 10,
      approvalTools: [],
      agents: [],
      handoffs: [],
      mcpServers: [],
      maxRunSeconds: undefined,
      maxRunCostMicros: undefined,
      trust: 'operator',
    });
    expect(agent?.version).toMatch(/^[0-9a-f]{16}$/);
    expect(agent?.updatedAt).toBeInstanceOf(Date);
    expect(registry.list().map((entry) => entry.id)).toEqual(['support']);
  });

  it.each([
    ['unknown key', minimal('temprature: 0.5'), 'temprature: unknown key'],
    ['unknown nested key', minimal('reasoning: { effort: low, budget: 3 }'), 'reasoning.budget: unknown key'],
    ['bad enum', minimal('reasoning: { effort: extreme }'), 'reasoning.effort: '],
    ['out of range', minimal('temperature: 5'), 'temperature: '],
    ['wrong type', minimal('max_steps: many'), 'max_steps: '],
    ['missing field', 'name: A\ninstructions: x\n', 'model: '],
    ['unknown model', 'name: A\nmodel: openai/gpt-5-turbo-max\ninstructions: x\n', 'model: unknown model "openai/gpt-5-turbo-max"'],
    ['unknown tool', minimal('tools: [calculator, calculater]'), 'tools[1]: unknown tool "calculater"'],
    ['duplicate tool', minimal('tools: [calculator, calculator]'), 'tools[1]: duplicate tool "calculator"'],
    ['missing collection', minimal('knowledge: [handbook, faq]'), 'knowledge[1]: no knowledge collection "faq"'],
    ['search without knowledge', minimal('tools: [knowledge_search]'), 'tools[0]: knowledge_search needs at least one collection'],
    ['both instructions', minimal('instructions_file: prompts/a.md'), 'instructions: give exactly one of instructions or instructions_file'],
    ['missing instructions file', 'name: A\nmodel: openai/gpt-4o-mini\ninstructions_file: prompts/nope.md\n', 'instructions_file: cannot read prompts/nope.md'],
    ['escaping instructions file', 'name: A\nmodel: openai/gpt-4o-mini\ninstructions_file: ../secret.md\n', 'instructions_file: must be a path inside the agents folder'],
    ['YAML syntax', 'name: A\nmodel: [unclosed\n', 'line '],
    ['not a mapping', '- just\n- a list\n', '(root): '],
  ])('refuses %s, naming the file and the path', async (_kind, content, expected) => {
    const { registry, errors } = await setup({ 'broken.yaml': content });
    expect(registry.get('broken')).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain(`broken.yaml: ${expected}`);
    expect(registry.errors()).toHaveLength(1);
  });

  it('reports every problem of a file at once: shape, references and instructions_file', async () => {
    const { errors } = await setup({
      'a.yml': [
        'name: A',
        'model: openai/gpt-5-turbo-max',
        'fallback_models: [anthropic/claude-sonnet-4-5, acme/x]',
        'instructions_file: prompts/nope.md',
        'tools: [calculater, 7, { name: current_time }]',
        'knowledge: [faq, ../etc]',
        'temprature: 0.5',
        'max_steps: 0',
        '',
      ].join('\n'),
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.issues.map((issue) => `${issue.path}: ${issue.message.split(' (')[0]}`)).toEqual([
      'tools[1]: Invalid input',
      'knowledge[1]: must be a folder name under the knowledge folder',
      'max_steps: Too small: expected number to be >=1',
      'temprature: unknown key',
      'model: unknown model "openai/gpt-5-turbo-max"',
      // (fallback_models[1], acme/x, is no reason to refuse: an unavailable fallback is left out with a warning)
      'tools[0]: unknown tool "calculater"',
      'knowledge[0]: no knowledge collection "faq"',
      'instructions_file: cannot read prompts/nope.md',
    ]);
    // One line per problem, each naming the file and the path.
    expect(errors[0]?.message.split('\n').every((line) => /a\.yml: \S+/.test(line))).toBe(true);
    // A shape that is fine reports its bad references the same way.
    const { errors: referenceErrors } = await setup({ 'a.yml': minimal('tools: [calculater]\nknowledge: [faq]') });
    expect(referenceErrors[0]?.issues.map((issue) => issue.path)).toEqual(['tools[0]', 'knowledge[0]']);
  });

  it('loads an agent without a fallback model not in the catalog, warning once, and refuses one whose own model is not', async () => {
    const { registry, errors, warnings } = await setup({ 'a.yaml': minimal('fallback_models: [anthropic/claude-sonnet-4-5, acme/x]') });
    expect(errors).toEqual([]);
    expect(registry.get('a')?.config.fallbackModels).toEqual(['anthropic/claude-sonnet-4-5']);
    expect(warnings).toEqual(['a.yaml: fallback_models[1]: unknown model "acme/x" (not in the catalog: is its provider configured?); left out of the fallbacks']);
    await registry.reload();
    expect(warnings).toHaveLength(1);
    const refused = await setup({ 'b.yaml': 'name: B\nmodel: acme/x\nfallback_models: [openai/gpt-4o-mini]\ninstructions: x\naccount: acme\n' });
    expect(refused.registry.get('b')).toBeUndefined();
    expect(refused.errors[0]).toMatchObject({ agentId: 'b', account: 'acme', issues: [{ path: 'model' }] });
  });

  it('hot-reloads: edits, broken edits (last good kept, error logged), removals and additions', async () => {
    const { agentsDir, registry, errors } = await setup({ 'support.yaml': SUPPORT, 'prompts/support.md': 'Version one.' }, { watch: true });
    const first = registry.get('support');
    const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 5_000, interval: 20 });

    await writeFile(join(agentsDir, 'support.yaml'), SUPPORT.replace('temperature: 0.2', 'temperature: 0.9'));
    await waitFor(() => expect(registry.get('support')?.config.temperature).toBe(0.9));
    expect(registry.get('support')?.version).not.toBe(first?.version);

    await writeFile(join(agentsDir, 'prompts/support.md'), 'Version two.');
    await waitFor(() => expect(registry.get('support')?.instructions).toBe('Version two.'));
    const good = registry.get('support');

    await writeFile(join(agentsDir, 'support.yaml'), SUPPORT.replace('tools: [knowledge_search, calculator]', 'tools: [knowledge_search, calculater]'));
    await waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]?.message).toContain('support.yaml: tools[1]: unknown tool "calculater"');
    expect(errors[0]?.keptVersion).toBe(good?.version);
    expect(registry.get('support')).toBe(good);

    await writeFile(join(agentsDir, 'helper.yml'), minimal('tools: [current_time]'));
    await waitFor(() => expect(registry.get('helper')?.config.tools).toEqual(['current_time']));

    await rm(join(agentsDir, 'support.yaml'));
    await waitFor(() => expect(registry.get('support')).toBeUndefined());
    expect(registry.errors()).toEqual([]);
    expect(errors).toHaveLength(1);
  });

  it('re-checks agents when the tools change', async () => {
    const dir = await withTempDir('agents-tools');
    cleanups.push(dir.remove);
    await writeFile(join(dir.path, 'a.yaml'), minimal('tools: [later]'));
    const names = new Set<string>();
    const listeners = new Set<() => void>();
    const errors: AgentConfigError[] = [];
    const registry = await createAgentRegistry({
      agentsDir: dir.path,
      knowledgeDir: dir.path,
      tools: {
        has: (name) => names.has(name),
        onChange: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
      isKnownModel: () => true,
      watch: false,
      onError: (error) => errors.push(error),
    });
    cleanups.push(() => registry.close());
    expect(registry.get('a')).toBeUndefined();
    names.add('later');
    for (const listener of listeners) listener();
    await vi.waitFor(() => expect(registry.get('a')).toBeDefined());
  });

  it('loads the example agents shipped in agents/ against the real tools and knowledge', async () => {
    const tools = await createToolRegistry({ toolsDir: 'tools', builtins: createBuiltinTools(), watch: false });
    const errors: AgentConfigError[] = [];
    const registry = await createAgentRegistry({
      agentsDir: 'agents',
      knowledgeDir: 'knowledge',
      tools,
      isKnownModel: (id) => MODELS.has(id),
      watch: false,
      onError: (error) => errors.push(error),
    });
    cleanups.push(() => registry.close());
    expect(errors.map((error) => error.message)).toEqual([]);
    expect(
      registry
        .list()
        .map((agent) => agent.id)
        .sort(),
    ).toEqual(['concierge', 'researcher', 'support']);
    expect(registry.get('concierge')?.instructions).toMatch(/concierge/);
    expect(registry.get('researcher')?.config.reasoning).toEqual({ effort: 'medium' });
    const definitions = tools.definitions(registry.get('support')?.config.tools ?? []);
    expect(definitions.map((definition) => definition.name)).toEqual(['knowledge_search', 'calculator', 'shipping_quote']);
  });
});
