import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBuiltinTools } from '../../../src/tools/builtin/builtin-tools.ts';
import { runTool } from '../../../src/tools/run-tool.ts';
import { createToolRegistry, type ToolLoadError, type ToolRegistry } from '../../../src/tools/tool-registry.ts';
import { DEFINE_TOOL_URL, toolContext, withTempDir, ZOD_URL } from './tool-test-helpers.ts';

/** A tool the registry must hold. */
const toolNamed = (registry: ToolRegistry, name: string) => {
  const tool = registry.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
};

const plainObjectTool = (name: string, reply: string) => `
export default {
  name: '${name}',
  description: 'Greets',
  parameters: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  cost_usd: 0.001,
  execute(args: { who: string }) { return '${reply} ' + args.who; },
};
`;

const zodTool = `
import { z } from '${ZOD_URL}';
import { defineTool } from '${DEFINE_TOOL_URL}';
export default defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number().default(1) }),
  execute: ({ a, b }) => ({ sum: a + b }),
});
`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(files: Record<string, string>, watch = false) {
  const dir = await withTempDir('tools');
  cleanups.push(dir.remove);
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir.path, name), content);
  const errors: ToolLoadError[] = [];
  const registry: ToolRegistry = await createToolRegistry({
    toolsDir: dir.path,
    builtins: createBuiltinTools(),
    watch,
    debounceMs: 20,
    onError: (error) => errors.push(error),
  });
  cleanups.push(() => registry.close());
  return { dir: dir.path, registry, errors };
}

describe('tool registry', () => {
  it('loads a plain-object tool and a defineTool + zod tool, next to the built-ins', async () => {
    const { registry, errors } = await setup({ 'greet.ts': plainObjectTool('greet', 'Hello'), 'add.ts': zodTool });
    expect(errors).toEqual([]);
    expect(
      registry
        .list()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(['add', 'calculator', 'current_time', 'greet', 'http_fetch', 'knowledge_search']);

    const [add] = registry.definitions(['add', 'missing']);
    expect(add).toEqual({
      name: 'add',
      description: 'Adds two numbers',
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number', default: 1 } },
        required: ['a'],
      },
    });
    expect(await runTool(toolNamed(registry, 'add'), '{"a":2}', toolContext())).toMatchObject({ ok: true, content: '{"sum":3}' });
    expect(await runTool(toolNamed(registry, 'greet'), { who: 'Ada' }, toolContext())).toMatchObject({ ok: true, content: 'Hello Ada', costMicros: 1_000 });
  });

  it('refuses a bad export, naming the file and the field', async () => {
    const { registry, errors } = await setup({
      'bad.ts': `export default { name: 'bad', description: 'x', parameters: { type: 'object' }, execute: 1, costUsd: 1 };`,
      'nodefault.js': `export const x = 1;`,
      'notobject.ts': `export default { name: 'n', description: 'x', parameters: { type: 'string' }, execute: () => '' };`,
    });
    expect(registry.has('bad')).toBe(false);
    const messages = errors.map((error) => error.message).join('\n');
    expect(messages).toMatch(/bad\.ts: costUsd: unknown key/);
    expect(messages).toMatch(/bad\.ts: execute: must be a function/);
    expect(messages).toMatch(/nodefault\.js: default: the file has no default export/);
    expect(messages).toMatch(/notobject\.ts: parameters: must describe an object/);
    expect(registry.errors()).toHaveLength(3);
  });

  it('refuses a file named like a built-in, naming the file and the built-in, and keeps the built-in', async () => {
    const { registry, errors } = await setup({ 'calc.ts': plainObjectTool('calculator', 'Calc'), 'clock.ts': plainObjectTool('current_time', 'Tick') });
    expect(registry.get('calculator')?.source).toBe('builtin');
    expect(registry.get('current_time')?.source).toBe('builtin');
    expect(await runTool(toolNamed(registry, 'calculator'), { expression: '2 + 3' }, toolContext())).toMatchObject({ ok: true, content: expect.stringContaining('5') });
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringMatching(/calc\.ts: name: "calculator" is the name of a built-in tool: this file is not loaded and the built-in calculator stays/),
      expect.stringMatching(/clock\.ts: name: "current_time" is the name of a built-in tool/),
    ]);
    expect(registry.errors()).toHaveLength(2);
    await registry.reload();
    expect(errors).toHaveLength(2);
  });

  it('reports duplicate names between files (the first file in name order serves)', async () => {
    const { registry, errors } = await setup({
      'a-greet.ts': plainObjectTool('greet', 'Hello'),
      'b-greet.ts': plainObjectTool('greet', 'Other'),
    });
    expect(registry.get('greet')?.source).toMatch(/a-greet\.ts$/);
    expect(errors.map((error) => error.message).join()).toMatch(/b-greet\.ts: name: duplicate tool name "greet"/);
  });

  it('reloads on change: edits, broken edits (last good kept), additions and removals', async () => {
    const { dir, registry, errors } = await setup({ 'greet.ts': plainObjectTool('greet', 'Hello') }, true);
    const changes = vi.fn();
    registry.onChange(changes);
    const greet = async () => (await runTool(toolNamed(registry, 'greet'), { who: 'Ada' }, toolContext())).content;

    await writeFile(join(dir, 'greet.ts'), plainObjectTool('greet', 'Bonjour'));
    await vi.waitFor(async () => expect(await greet()).toBe('Bonjour Ada'), { timeout: 5_000, interval: 20 });
    expect(changes).toHaveBeenCalled();

    await writeFile(join(dir, 'greet.ts'), 'export default {{ broken');
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 5_000, interval: 20 });
    expect(errors[0]?.message).toMatch(/greet\.ts: \(file\): /);
    expect(await greet()).toBe('Bonjour Ada');

    await writeFile(join(dir, 'add.ts'), zodTool);
    await vi.waitFor(() => expect(registry.has('add')).toBe(true), { timeout: 5_000, interval: 20 });

    await rm(join(dir, 'greet.ts'));
    await vi.waitFor(() => expect(registry.has('greet')).toBe(false), { timeout: 5_000, interval: 20 });
  });

  it('loads the example tools shipped in tools/', async () => {
    const errors: ToolLoadError[] = [];
    const registry = await createToolRegistry({ toolsDir: 'tools', builtins: createBuiltinTools(), watch: false, onError: (error) => errors.push(error) });
    expect(errors).toEqual([]);
    const quote = await runTool(toolNamed(registry, 'shipping_quote'), { weight_kg: 2.2, destination: 'europe' }, toolContext());
    expect(quote).toMatchObject({ ok: true, costMicros: 1_000 });
    expect(JSON.parse(quote.content)).toEqual({ destination: 'europe', billed_weight_kg: 2.5, price: '22.00', currency: 'EUR', delivery_days: '3-5' });
    expect((await runTool(toolNamed(registry, 'shipping_quote'), { weight_kg: 2, destination: 'mars' }, toolContext())).ok).toBe(false);
    const miles = await runTool(toolNamed(registry, 'unit_convert'), { value: 10, from: 'km', to: 'mi' }, toolContext());
    expect(JSON.parse(miles.content)).toMatchObject({ result: 6.21371192237 });
    const celsius = await runTool(toolNamed(registry, 'unit_convert'), { value: 212, from: 'F', to: 'C' }, toolContext());
    expect(JSON.parse(celsius.content)).toMatchObject({ result: 100 });
  });
});
