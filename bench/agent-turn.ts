/**
 * `node --import tsx bench/agent-turn.ts`: what checkpointing costs one agent turn.
 * One in-process app on the engine under test (PGlite, or PostgreSQL with DATABASE_URL)
 * and the fake OpenAI upstream; the same plain turn (`echo`: one model step) and tool
 * turn (`helper`: model → tool → model) run with the checkpointer on and off, in
 * alternating rounds (the machine is shared), reporting the median wall time and the
 * process CPU per turn. Options (env): BENCH_TURNS (default 150 per round), BENCH_ROUNDS (4).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { startGateway } from '../test/support/gateway-harness.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 150);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

const dirs = mkdtempSync(join(tmpdir(), 'junction-bench-agent-'));
cpSync(join(import.meta.dirname, '../test/fixtures/agents-e2e/tools'), join(dirs, 'tools'), { recursive: true });
cpSync(join(import.meta.dirname, '../test/fixtures/agents-e2e/agents'), join(dirs, 'agents'), { recursive: true });
const gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(dirs, 'agents'), JUNCTION_TOOLS_DIR: join(dirs, 'tools'), JUNCTION_KNOWLEDGE_DIR: join(dirs, 'knowledge') });
await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '1000', currency: 'USD' });
const key = await gateway.key('agent');
const runtime = gateway.services.agentRuntime;
if (!runtime) throw new Error('no agent runtime');
const checkpointer = runtime.checkpointer;

async function round(agent: string, checkpointed: boolean): Promise<{ wallMs: number[]; cpuMicros: number }> {
  if (checkpointed) runtime!.checkpointer = checkpointer;
  else delete runtime!.checkpointer;
  const wallMs: number[] = [];
  const cpu = process.cpuUsage();
  for (let turn = 0; turn < TURNS; turn += 1) {
    const started = performance.now();
    const reply = await gateway.app.inject({ method: 'POST', url: '/agents/v1/responses', headers: { authorization: `Bearer ${key}` }, payload: { model: agent, input: `turn ${turn}`, store: false } });
    if (reply.statusCode !== 200) throw new Error(`${reply.statusCode} ${reply.body}`);
    wallMs.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMicros: (used.user + used.system) / TURNS };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const results: Record<string, { wall: number[]; cpu: number[] }> = {};
for (const agent of ['echo', 'helper']) {
  await round(agent, true); // warm-up: JIT, leases, caches
  await round(agent, false);
  for (let index = 0; index < ROUNDS; index += 1) {
    for (const checkpointed of index % 2 === 0 ? [true, false] : [false, true]) {
      const measured = await round(agent, checkpointed);
      const entry = (results[`${agent} ${checkpointed ? 'checkpointed' : 'plain'}`] ??= { wall: [], cpu: [] });
      entry.wall.push(...measured.wallMs);
      entry.cpu.push(measured.cpuMicros);
    }
  }
}
await gateway.settle();
for (const [name, entry] of Object.entries(results)) {
  console.log(`${name.padEnd(22)} median ${median(entry.wall).toFixed(2)} ms/turn   cpu ${(median(entry.cpu) / 1000).toFixed(2)} ms/turn`);
}
runtime.checkpointer = checkpointer;
await gateway.close();
rmSync(dirs, { recursive: true, force: true });
