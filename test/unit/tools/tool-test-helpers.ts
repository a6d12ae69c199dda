import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { KnowledgeHit, ToolContext } from '../../../src/tools/define-tool.ts';

/** Absolute URLs so tool files written to a temp dir can import zod and defineTool. */
export const ZOD_URL = pathToFileURL(fileURLToPath(import.meta.resolve('zod'))).href;
export const DEFINE_TOOL_URL = new URL('../../../src/tools/define-tool.ts', import.meta.url).href;

export function toolContext(overrides: Partial<ToolContext> = {}, hits: KnowledgeHit[] = []): ToolContext {
  return {
    signal: new AbortController().signal,
    accountId: 'account_test',
    agentId: 'agent_test',
    knowledge: { search: async () => hits },
    ...overrides,
  };
}

export async function withTempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `junction-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
