import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileTool } from '../../../src/tools/compile-tool.ts';
import { defineTool } from '../../../src/tools/define-tool.ts';
import { runTool } from '../../../src/tools/run-tool.ts';
import { toolContext } from './tool-test-helpers.ts';

const echo = compileTool(
  defineTool({
    name: 'echo',
    description: 'Echoes',
    parameters: z.object({ text: z.string(), times: z.number().int().default(1) }),
    cost_usd: 0.0025,
    execute: ({ text, times }) => ({ echoed: text.repeat(times) }),
  }),
  'test',
  'v1',
);

describe('runTool', () => {
  it('validates, executes and normalises JSON output, with the cost in micro-USD', async () => {
    const result = await runTool(echo, '{"text":"ab","times":2}', toolContext());
    expect(result).toMatchObject({ ok: true, content: '{"echoed":"abab"}', costMicros: 2_500 });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('converts cost_usd exactly, including decimal strings', () => {
    const tool = (cost: number | string) => compileTool({ name: 't', description: 'd', parameters: { type: 'object' }, cost_usd: cost, execute: () => '' }, 'test', 'v');
    expect(tool(0.001).costMicros).toBe(1_000);
    expect(tool('0.000001').costMicros).toBe(1);
    expect(tool(0.3).costMicros).toBe(300_000);
    expect(() => tool(0.0000001)).toThrow(/cost_usd/);
  });

  it('returns invalid arguments as an error result without running the tool or charging', async () => {
    let called = false;
    const tool = compileTool(
      {
        name: 't',
        description: 'd',
        parameters: z.object({ n: z.number() }),
        cost_usd: 1,
        execute: () => {
          called = true;
          return 'x';
        },
      },
      'test',
      'v',
    );
    const result = await runTool(tool, { n: 'five' }, toolContext());
    expect(result.ok).toBe(false);
    expect(result.content).toMatch(/^Error: invalid arguments for t: n: /);
    expect(result.costMicros).toBe(0);
    expect(called).toBe(false);
    expect((await runTool(tool, '{not json', toolContext())).content).toMatch(/not valid JSON/);
  });

  it('validates JSON Schema parameters too, applying defaults', async () => {
    const tool = compileTool(
      {
        name: 'js',
        description: 'd',
        parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string', default: 'x' } }, required: ['a'], additionalProperties: false },
        execute: (args: { a: number; b: string }) => `${args.a}${args.b}`,
      },
      'test',
      'v',
    );
    expect(await runTool(tool, { a: 1 }, toolContext())).toMatchObject({ ok: true, content: '1x' });
    const refused = await runTool(tool, { a: 1, c: 2 }, toolContext());
    expect(refused.ok).toBe(false);
    expect(refused.content).toMatch(/must NOT have additional properties/);
  });

  it('turns a thrown error into an error result', async () => {
    const tool = compileTool(
      {
        name: 'boom',
        description: 'd',
        parameters: { type: 'object' },
        cost_usd: 0.01,
        execute: () => {
          throw new Error('kaput');
        },
      },
      'test',
      'v',
    );
    const result = await runTool(tool, {}, toolContext());
    expect(result).toMatchObject({ ok: false, content: 'Error: kaput', costMicros: 10_000 });
  });

  it('times out a slow tool, aborting its signal, even if the tool ignores it', async () => {
    let aborted = false;
    const tool = compileTool(
      {
        name: 'slow',
        description: 'd',
        parameters: { type: 'object' },
        timeout_ms: 50,
        execute: (_args: unknown, context: { signal: AbortSignal }) => {
          context.signal.addEventListener('abort', () => (aborted = true));
          return new Promise<string>(() => undefined);
        },
      },
      'test',
      'v',
    );
    const result = await runTool(tool, {}, toolContext());
    expect(result.ok).toBe(false);
    expect(result.content).toBe('Error: slow timed out after 50 ms');
    expect(aborted).toBe(true);
  });

  it('reports a cancelled run', async () => {
    const controller = new AbortController();
    const tool = compileTool({ name: 'wait', description: 'd', parameters: { type: 'object' }, execute: () => new Promise<string>(() => undefined) }, 'test', 'v');
    const pending = runTool(tool, {}, toolContext({ signal: controller.signal }));
    controller.abort();
    expect((await pending).content).toBe('Error: the run was cancelled');
  });

  it('caps very long output', async () => {
    const tool = compileTool({ name: 'long', description: 'd', parameters: { type: 'object' }, execute: () => 'x'.repeat(50) }, 'test', 'v');
    const result = await runTool(tool, {}, toolContext(), { maxContentChars: 10 });
    expect(result.content).toBe(`${'x'.repeat(10)}\n…[truncated 40 characters]`);
  });
});
