import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicUpstream } from '../support/fake-anthropic-upstream.ts';
import { startFakeGeminiUpstream } from '../support/fake-gemini-upstream.ts';
import { startFakeVertex, type FakeVertex } from '../support/fake-vertex-upstream.ts';
import type { FakeUpstream } from '../support/recording-server.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { createScratchDatabase } from '../support/test-database.ts';

/**
 * The compiled server (`npm start`) reaching Claude on Vertex AI: google-auth-library is
 * bundled into build/ as CommonJS and loaded on the first token, which the in-process tests
 * (run from source) do not exercise.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'junction-vertex-compiled-'));
let gemini: FakeUpstream;
let anthropic: FakeUpstream;
let vertex: FakeVertex;
let database: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
let server: ServerProcess | undefined;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  gemini = await startFakeGeminiUpstream();
  anthropic = await startFakeAnthropicUpstream();
  vertex = await startFakeVertex({ gemini, anthropic, project: 'junction-compiled' });
  if (process.env.DATABASE_URL) database = await createScratchDatabase(process.env.DATABASE_URL, 'junction_vertex');
  const configPath = join(dataDir, 'junction.yaml');
  writeFileSync(configPath, 'models:\n  anthropic/claude-sonnet-4-5:\n    deployments:\n      - { provider: vertex, model: claude-sonnet-4-5@20250929, api_key_env: VERTEX_SERVICE_ACCOUNT }\n');
  env = {
    ...process.env,
    ...(database ? { DATABASE_URL: database.url } : {}),
    PORT: '0',
    LOG_LEVEL: 'info',
    JUNCTION_DATA_DIR: dataDir,
    JUNCTION_CONFIG: configPath,
    JUNCTION_AGENTS_DIR: join(dataDir, 'agents'),
    JUNCTION_TOOLS_DIR: join(dataDir, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(dataDir, 'knowledge'),
    VERTEX_SERVICE_ACCOUNT: vertex.serviceAccountJson(),
    VERTEX_BASE_URL: vertex.origin,
  };
});

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  }
  await Promise.all([vertex?.close(), gemini?.close(), anthropic?.close()]);
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const cli = async (...args: string[]) => (await run(process.execPath, [join(ROOT, 'bin/junction.js'), ...args], { env, timeout: 60_000 })).stdout;

describe('the compiled server', () => {
  it('answers Claude on Vertex, whole and streamed, with one token exchange', async () => {
    server = await startServerProcess(env);
    const { key } = JSON.parse(await cli('keys', 'create', '--kind', 'model', '--name', 'vertex-compiled', '--json')) as { key: string };
    await cli('credits', 'grant', '--amount', '5', '--currency', 'USD');
    for (const stream of [false, true]) {
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'anthropic/claude-sonnet-4-5', stream, messages: [{ role: 'user', content: 'hello compiled server' }] }),
      });
      const body = await response.text();
      expect(response.status, body).toBe(200);
      expect(response.headers.get('x-junction-provider')).toBe('vertex');
      expect(body).toContain(stream ? '"content":"hello "' : '"content":"hello compiled server"');
    }
    expect(vertex.hits.map((hit) => hit.path)).toEqual([
      '/v1/projects/junction-compiled/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
      '/v1/projects/junction-compiled/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict',
    ]);
    expect(vertex.tokenRequests).toBe(1);
  });
});
