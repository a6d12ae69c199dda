import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIUpstream } from '../../support/fake-openai-upstream.ts';
import { TEST_CONFIG, UPSTREAM_KEYS } from '../../support/gateway-harness.ts';
import { freshStorage } from '../../support/test-database.ts';

/** `npx junction doctor`: each problem with its fix, exit 1 when any; a provider is checked with one authenticated call. */
const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../../bin/junction.js');
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let storage: Awaited<ReturnType<typeof freshStorage>>;
let dataDir: string;
let migrated: Promise<unknown> | undefined;

type Report = { ok: boolean; results: Array<{ name: string; ok: boolean; detail: string; fix?: string }> };

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai });
  storage = await freshStorage();
  dataDir = mkdtempSync(join(tmpdir(), 'junction-doctor-'));
  // The fixture agent `librarian` uses the collection `handbook`.
  mkdirSync(join(dataDir, 'handbook'));
});
afterAll(async () => {
  await upstream.close();
  await storage.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function doctor(overrides: Record<string, string>, format: 'json' | 'text' = 'json'): Promise<{ code: number; report: Report; stdout: string }> {
  const { DATABASE_URL: _ignored, OPENAI_API_KEY: _key, ...rest } = process.env;
  const env = {
    ...rest,
    ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : { JUNCTION_DATA_DIR: dataDir }),
    JUNCTION_CONFIG: TEST_CONFIG,
    JUNCTION_AGENTS_DIR: join(import.meta.dirname, '../../fixtures/agents-e2e/agents'),
    JUNCTION_TOOLS_DIR: join(import.meta.dirname, '../../fixtures/agents-e2e/tools'),
    JUNCTION_KNOWLEDGE_DIR: dataDir,
    OPENAI_BASE_URL: upstream.url,
    ...overrides,
  };
  // Every call uses the same store: migrated by the first (a CLI start each, about a second).
  migrated ??= run(process.execPath, [BIN, 'migrate'], { env, timeout: 60_000 });
  await migrated;
  const parse = (stdout: string) => (format === 'json' ? (JSON.parse(stdout) as Report) : { ok: false, results: [] });
  return run(process.execPath, [BIN, 'doctor', ...(format === 'json' ? ['--json'] : [])], { env, timeout: 60_000 }).then(
    (result) => ({ code: 0, report: parse(result.stdout), stdout: result.stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, report: parse(error.stdout), stdout: error.stdout }),
  );
}

describe('npx junction doctor', () => {
  it('passes with a working provider, database and agent files', async () => {
    const { code, report } = await doctor({ OPENAI_API_KEY: UPSTREAM_KEYS.openai });
    const failing = report.results.filter((result) => !result.ok);
    expect(failing).toEqual([]);
    expect(code).toBe(0);
    expect(report.results.find((result) => result.name === 'provider openai')).toMatchObject({ ok: true });
    expect(report.results.find((result) => result.name === 'pgvector')).toMatchObject({ ok: true });
  });

  it('names a refused key with its fix, never printing the key, and exits 1', async () => {
    const { code, report } = await doctor({ OPENAI_API_KEY: 'sk-wrong-key-for-doctor' });
    expect(code).toBe(1);
    expect(report.results.find((result) => result.name === 'provider openai')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('refused the key (401)'),
      fix: expect.stringContaining('API key'),
    });
    expect(JSON.stringify(report)).not.toContain('sk-wrong-key-for-doctor');
  });

  it("on the README's agents with only OpenAI: support loads without its Anthropic fallback (noted), researcher fails with why", async () => {
    const root = join(import.meta.dirname, '../../..');
    const { code, report } = await doctor({
      OPENAI_API_KEY: UPSTREAM_KEYS.openai,
      JUNCTION_AGENTS_DIR: join(root, 'agents'),
      JUNCTION_TOOLS_DIR: join(root, 'tools'),
      JUNCTION_KNOWLEDGE_DIR: join(root, 'knowledge'),
    });
    expect(code).toBe(1);
    const files = report.results.filter((result) => result.name === 'file');
    expect(files).toContainEqual(expect.objectContaining({ ok: true, detail: expect.stringMatching(/support\.yaml: fallback_models\[0\]: unknown model "anthropic\/claude-sonnet-4-5".*left out/) }));
    expect(files).toContainEqual(expect.objectContaining({ ok: false, detail: expect.stringMatching(/researcher\.yaml: model: unknown model "anthropic\/claude-sonnet-4-5"/) }));
  });

  it('reports every problem of a refused agent file at once, each with its path', async () => {
    const agentsDir = mkdtempSync(join(tmpdir(), 'junction-doctor-agents-'));
    try {
      writeFileSync(
        join(agentsDir, 'broken.yaml'),
        ['name: Broken', 'model: openai/not-in-catalog', 'instructions: Help.', 'temprature: 0.5', 'max_steps: 0', 'tools: [calculator, no_such_tool]', ''].join('\n'),
      );
      const overrides = { OPENAI_API_KEY: UPSTREAM_KEYS.openai, JUNCTION_AGENTS_DIR: agentsDir };
      const { code, report } = await doctor(overrides);
      expect(code).toBe(1);
      const file = report.results.find((result) => result.name === 'file');
      expect(file?.detail.split('\n').map((line) => line.replace(`${join(agentsDir, 'broken.yaml')}: `, '').split(' (')[0])).toEqual([
        'max_steps: Too small: expected number to be >=1',
        'temprature: unknown key',
        'model: unknown model "openai/not-in-catalog"',
        'tools[1]: unknown tool "no_such_tool"',
      ]);
      const { stdout } = await doctor(overrides, 'text');
      expect(stdout).toContain(`FAIL  file: ${join(agentsDir, 'broken.yaml')}: max_steps: `);
      expect(stdout).toContain(`\n      ${join(agentsDir, 'broken.yaml')}: tools[1]: unknown tool "no_such_tool"\n`);
    } finally {
      rmSync(agentsDir, { recursive: true, force: true });
    }
  });

  it('reports a tool file named like a built-in, which is refused while the built-in stays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'junction-doctor-tools-'));
    try {
      mkdirSync(join(dir, 'tools'));
      mkdirSync(join(dir, 'agents'));
      writeFileSync(join(dir, 'tools', 'my-calculator.ts'), "export default { name: 'calculator', description: 'Mine', parameters: { type: 'object', properties: {} }, execute: () => '42' };\n");
      const { code, report } = await doctor({ OPENAI_API_KEY: UPSTREAM_KEYS.openai, JUNCTION_TOOLS_DIR: join(dir, 'tools'), JUNCTION_AGENTS_DIR: join(dir, 'agents') });
      expect(code).toBe(1);
      expect(report.results.find((result) => result.name === 'agent and tool files')).toMatchObject({ ok: false, detail: '0 agents, 4 tools loaded' });
      expect(report.results.find((result) => result.name === 'file')?.detail).toBe(
        `${join(dir, 'tools', 'my-calculator.ts')}: name: "calculator" is the name of a built-in tool: this file is not loaded and the built-in calculator stays (give the tool another name)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
