/**
 * Agent turn overhead: what an agent adds to the model call it wraps. One in-process
 * app on the engine under test (PGlite, or PostgreSQL with DATABASE_URL), the fake
 * OpenAI upstream answering at once, and sequential calls over HTTP: the model call
 * through the gateway (`/v1/chat/completions`), then the same model as a plain agent
 * (`echo`) and as an agent with knowledge retrieval (`librarian`, full text over the
 * example handbook) on both agent endpoints, with their default storage (the chat
 * conversation and the stored response are written; checkpoints as shipped), and the
 * plain responses turn once more with `store: false` (the runtime without the write). Kinds
 * alternate in rounds (the machine is shared). Overhead = an agent kind's p50 minus
 * the gateway call's p50.
 *
 *   node --import tsx bench/agent-turn.ts     (BENCH_TURNS per kind per round, default 100; BENCH_ROUNDS, default 4)
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { indexKnowledge } from '../src/knowledge/knowledge-indexer.ts';
import { startGateway } from '../test/support/gateway-harness.ts';
import { engineName } from '../test/support/test-database.ts';
import { percentile } from './load.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const QUESTION = 'How many days do I have to return an item?';

export type AgentTurnResult = {
  engine: string;
  gatewayP50Ms: number;
  /** Per kind ("chat plain", "responses knowledge"…): p50 and p50 minus the gateway call's p50, in ms. */
  turns: Record<string, { p50Ms: number; overheadMs: number }>;
};

type Kind = { name: string; path: string; key: 'model' | 'agent'; body: (turn: number) => object };

const KINDS: Kind[] = [
  { name: 'gateway', path: '/v1/chat/completions', key: 'model', body: (turn) => ({ model: 'openai/test-echo', messages: [{ role: 'user', content: `${QUESTION} ${turn}` }] }) },
  { name: 'chat plain', path: '/agents/v1/chat/completions', key: 'agent', body: (turn) => ({ model: 'echo', messages: [{ role: 'user', content: `${QUESTION} ${turn}` }] }) },
  { name: 'responses plain', path: '/agents/v1/responses', key: 'agent', body: (turn) => ({ model: 'echo', input: `${QUESTION} ${turn}` }) },
  // The same turn with nothing stored: what the runtime adds, apart from the durable write of the turn.
  { name: 'responses plain unstored', path: '/agents/v1/responses', key: 'agent', body: (turn) => ({ model: 'echo', input: `${QUESTION} ${turn}`, store: false }) },
  { name: 'chat knowledge', path: '/agents/v1/chat/completions', key: 'agent', body: (turn) => ({ model: 'librarian', messages: [{ role: 'user', content: `${QUESTION} ${turn}` }] }) },
  { name: 'responses knowledge', path: '/agents/v1/responses', key: 'agent', body: (turn) => ({ model: 'librarian', input: `${QUESTION} ${turn}` }) },
];

export async function measureAgentTurns(): Promise<AgentTurnResult> {
  const dirs = mkdtempSync(join(tmpdir(), 'junction-bench-agent-'));
  cpSync(join(import.meta.dirname, '../test/fixtures/agents-e2e/tools'), join(dirs, 'tools'), { recursive: true });
  cpSync(join(import.meta.dirname, '../test/fixtures/agents-e2e/agents'), join(dirs, 'agents'), { recursive: true });
  cpSync(join(import.meta.dirname, '../knowledge/handbook'), join(dirs, 'knowledge/handbook'), { recursive: true });
  // PGlite in a data folder, as `npm start` keeps the store: its commits are fsynced (without DATABASE_URL; with it, only the journal's folder).
  const gateway = await startGateway({
    JUNCTION_DATA_DIR: join(dirs, 'store'),
    JUNCTION_AGENTS_DIR: join(dirs, 'agents'),
    JUNCTION_TOOLS_DIR: join(dirs, 'tools'),
    JUNCTION_KNOWLEDGE_DIR: join(dirs, 'knowledge'),
  });
  const pool = new Pool(gateway.baseUrl, { connections: 1 });
  try {
    await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '1000', currency: 'USD' });
    await indexKnowledge({ db: gateway.services.db, accountId: gateway.services.defaultAccount.id, rootDir: join(dirs, 'knowledge') });
    const keys = { model: await gateway.key('model'), agent: await gateway.key('agent') };
    const samples = new Map<string, number[]>(KINDS.map((kind) => [kind.name, []]));
    const call = async (kind: Kind, turn: number) => {
      const started = performance.now();
      const response = await pool.request({
        path: kind.path,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[kind.key]}` },
        body: JSON.stringify(kind.body(turn)),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`${kind.name}: ${response.statusCode} ${text}`);
      return performance.now() - started;
    };
    for (const kind of KINDS) for (let turn = 0; turn < TURNS; turn += 1) await call(kind, turn); // warm-up: JIT, leases, caches
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? KINDS : [...KINDS].reverse();
      for (const kind of order) for (let turn = 0; turn < TURNS; turn += 1) samples.get(kind.name)?.push(await call(kind, turn));
    }
    await gateway.settle();
    const gatewayP50Ms = percentile(samples.get('gateway') ?? [], 50);
    const turns: AgentTurnResult['turns'] = {};
    for (const kind of KINDS.slice(1)) {
      const p50Ms = percentile(samples.get(kind.name) ?? [], 50);
      turns[kind.name] = { p50Ms, overheadMs: p50Ms - gatewayP50Ms };
    }
    return { engine: engineName(), gatewayP50Ms, turns };
  } finally {
    await pool.close();
    await gateway.close();
    rmSync(dirs, { recursive: true, force: true });
  }
}

export function printAgentTurns(results: AgentTurnResult[]): void {
  console.log('\nagent turn overhead (sequential, p50 ms; overhead = agent turn − the same model call through the gateway):\n');
  const kinds = KINDS.slice(1).map((kind) => kind.name);
  console.log(`| engine | gateway call | ${kinds.join(' | ')} |`);
  console.log(`|---|---:|${kinds.map(() => '---:').join('|')}|`);
  for (const result of results) {
    const cells = kinds.map((kind) => {
      const turn = result.turns[kind];
      return turn ? `${turn.p50Ms.toFixed(2)} (+${turn.overheadMs.toFixed(2)})` : '-';
    });
    console.log(`| ${result.engine} | ${result.gatewayP50Ms.toFixed(2)} | ${cells.join(' | ')} |`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measureAgentTurns();
  if (process.env.BENCH_JSON === '1') console.log(JSON.stringify(result));
  else printAgentTurns([result]);
}
