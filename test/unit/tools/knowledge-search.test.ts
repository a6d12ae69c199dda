import { describe, expect, it, vi } from 'vitest';
import { knowledgeSearchTool } from '../../../src/tools/builtin/knowledge-search.ts';
import { compileTool } from '../../../src/tools/compile-tool.ts';
import { runTool } from '../../../src/tools/run-tool.ts';
import { toolContext } from './tool-test-helpers.ts';

const tool = compileTool(knowledgeSearchTool, 'builtin', 'builtin');

describe('knowledge_search', () => {
  it("calls the injected search of the agent's knowledge with the query and limit", async () => {
    const search = vi.fn(async () => [{ content: 'Returns are accepted within 30 days.', source: 'returns-and-refunds.md', collection: 'handbook', score: 0.87654 }]);
    const result = await runTool(tool, { query: 'return window', limit: 3 }, toolContext({ knowledge: { search } }));
    expect(search).toHaveBeenCalledWith('return window', { limit: 3 });
    expect(result.ok).toBe(true);
    expect(JSON.parse(result.content)).toEqual([{ source: 'returns-and-refunds.md', collection: 'handbook', score: 0.877, content: 'Returns are accepted within 30 days.' }]);
  });

  it('defaults the limit and says so when nothing matches', async () => {
    const search = vi.fn(async () => []);
    const result = await runTool(tool, { query: 'llamas' }, toolContext({ knowledge: { search } }));
    expect(search).toHaveBeenCalledWith('llamas', { limit: 5 });
    expect(result.content).toBe('No matching passages found.');
  });

  it('refuses an empty query and reports a failing search as an error result', async () => {
    expect((await runTool(tool, { query: '' }, toolContext())).ok).toBe(false);
    const failing = toolContext({ knowledge: { search: async () => Promise.reject(new Error('index unavailable')) } });
    expect(await runTool(tool, { query: 'x' }, failing)).toMatchObject({ ok: false, content: 'Error: index unavailable' });
  });
});
