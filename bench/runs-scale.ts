/**
 * Runs and conversations at scale, a part of the `scale` bench (alone with `BENCH_ONLY=runs-scale`):
 * one account's agent traffic loaded to BENCH_SCALE_RUNS runs of 3 steps and
 * BENCH_SCALE_CONVERSATIONS conversations of 4 messages (1,000,000 each on PostgreSQL, 100,000 on
 * PGlite) among other accounts' tail (bench/runs-scale-server.ts), then p50/p95 of every list
 * agent traffic grows, as real HTTP requests: the console's (session cookie) conversations of an
 * agent (first page, by key, by a key with none, deep in by its cursor), its runs (the Usage page
 * by agent), a conversation and a run (by run id and by response id), the rated runs (feedback:
 * first page, by agent, by rating, deep in), a run's feedback and an agent's summed by version;
 * the Agents API's (agent key) conversations (first page, deep in), a conversation's items and
 * tree, a response's input items and its feedback. Console reads are spaced to the account's read share, as in bench/scale.ts.
 *
 *   node --import tsx bench/runs-scale.ts
 */
import { pathToFileURL } from 'node:url';
import { allocatorDefaults } from '../src/ops/allocator-env.ts';
import { ACCOUNT_READS_PER_SECOND } from '../src/store/reporting-reads.ts';
import { createScratchDatabase } from '../test/support/test-database.ts';
import { startScript, stopAll } from './child-process.ts';
import { compiledScript } from './compiled-scripts.ts';
import { percentile } from './load.ts';

export type ListTiming = { name: string; p50: number; p95: number; failures: number; rows: number };
export type RunsScaleResult = { engine: string; runs: number; conversations: number; loadSeconds: number; lists: ListTiming[] };

const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 50);

type Server = {
  url: string;
  cookie: string;
  engine: string;
  loadSeconds: string;
  agent: string;
  keyOfAgent: string;
  keyOfAgentToken: string;
  keyWithoutAgent: string;
  runId: string;
  runResponseId: string;
  backgroundResponseId: string;
  conversationId: string;
  responseId: string;
  ratedResponseId: string;
  ratedRunId: string;
  feedbackId: string;
};

/** How many entries an answer lists: a page's data, a conversation's messages or a run's steps. */
function entries(body: unknown): number {
  const value = body as { data?: unknown[]; messages?: unknown[]; run?: { steps?: unknown[] }; versions?: unknown[] };
  return value.data?.length ?? value.messages?.length ?? value.run?.steps?.length ?? value.versions?.length ?? 0;
}

async function timed(url: string, headers: Record<string, string>, spacingMs: number): Promise<ListTiming> {
  const times: number[] = [];
  let failures = 0;
  let rows = 0;
  for (let index = 0; index < SAMPLES + 3; index += 1) {
    const startedAt = performance.now();
    const response = await fetch(url, { headers });
    const body = await response.json();
    const ms = performance.now() - startedAt;
    // The first answers warm the plan and the pages; they are not counted.
    if (index >= 3) times.push(ms);
    if (response.status !== 200) failures += 1;
    rows = entries(body);
    if (ms < spacingMs) await new Promise((done) => setTimeout(done, spacingMs - ms));
  }
  return { name: '', p50: percentile(times, 50), p95: percentile(times, 95), failures, rows };
}

async function measure(server: Server): Promise<ListTiming[]> {
  const share = 1_000 / ACCOUNT_READS_PER_SECOND;
  const agents = `/agents/${server.agent}/conversations`;
  const consoleCases: Array<[string, string]> = [
    ["an agent's conversations, first page", agents],
    ["an agent's conversations, a key", `${agents}?key_id=${server.keyOfAgent}`],
    ["an agent's conversations, a key with none", `${agents}?key_id=${server.keyWithoutAgent}`],
    ["an agent's conversations, a page deep in", `${agents}?cursor=${server.conversationId}`],
    ["an agent's runs (Usage by agent), first page", `/usage?agent_id=${server.agent}`],
    ['a conversation', `/conversations/${server.conversationId}`],
    ["a run's steps", `/runs/${server.runId}`],
    ["a run's steps by its response id", `/runs/${server.runResponseId}`],
    ["a background run's steps by its response id", `/runs/${server.backgroundResponseId}`],
    ['rated runs (feedback), first page', '/feedback'],
    ['rated runs, an agent', `/feedback?agent_id=${server.agent}`],
    ['rated runs, thumbs down', '/feedback?rating=down'],
    ["rated runs, an agent's version thumbs down", `/feedback?agent_id=${server.agent}&agent_version=v2&rating=down`],
    ['rated runs, a page deep in', `/feedback?cursor=${server.feedbackId}`],
    ["a run's feedback", `/runs/${server.ratedRunId}/feedback`],
    ["an agent's feedback by version", `/agents/${server.agent}/feedback-summary`],
  ];
  const apiCases: Array<[string, string]> = [
    ['conversations, first page', '/conversations'],
    ['conversations, a page deep in', `/conversations?after=${server.conversationId}`],
    ["a conversation's items", `/conversations/${server.conversationId}/items`],
    ['a conversation', `/conversations/${server.conversationId}`],
    ["a response's input items", `/responses/${server.responseId}/input_items`],
    ["a response's feedback", `/responses/${server.ratedResponseId}/feedback`],
  ];
  const lists: ListTiming[] = [];
  for (const [name, path] of consoleCases) lists.push({ ...(await timed(`${server.url}/console/api${path}`, { cookie: server.cookie }, share)), name: `console: ${name}` });
  for (const [name, path] of apiCases) lists.push({ ...(await timed(`${server.url}/agents/v1${path}`, { authorization: `Bearer ${server.keyOfAgentToken}` }, 0)), name: `/agents/v1: ${name}` });
  return lists;
}

export async function runsScale(options: { databaseUrl: string | undefined; runs: number; conversations: number }): Promise<RunsScaleResult> {
  const scratch = options.databaseUrl ? await createScratchDatabase(options.databaseUrl, 'junction_bench_runs_scale') : undefined;
  try {
    const server = await startScript(await compiledScript('bench/runs-scale-server.ts'), {
      DATABASE_URL: scratch?.url ?? '',
      SCALE_RUNS: String(options.runs),
      SCALE_CONVERSATIONS: String(options.conversations),
      ...allocatorDefaults(process.env),
    });
    const info = server.info as unknown as Server;
    const lists = await measure(info);
    server.child.kill('SIGTERM');
    return { engine: info.engine, runs: options.runs, conversations: options.conversations, loadSeconds: Number(info.loadSeconds), lists };
  } finally {
    await new Promise((done) => setTimeout(done, 500));
    await scratch?.drop();
  }
}

/** The sizes of one engine's run: BENCH_SCALE_RUNS and BENCH_SCALE_CONVERSATIONS, else a million on PostgreSQL and a tenth of it on PGlite. */
export function runsScaleSizes(engine: 'pglite' | 'postgres'): { runs: number; conversations: number } {
  const runs = Number(process.env.BENCH_SCALE_RUNS ?? (engine === 'postgres' ? 1_000_000 : 100_000));
  return { runs, conversations: Number(process.env.BENCH_SCALE_CONVERSATIONS ?? runs) };
}

export function printRunsScale(result: RunsScaleResult): void {
  const count = (value: number) => value.toLocaleString('en');
  console.log(`\nruns and conversations at scale (${result.engine}, ${count(result.runs)} runs and ${count(result.conversations)} conversations of one account, loaded in ${result.loadSeconds} s):\n`);
  console.log('| list | p50 ms | p95 ms | entries | not 200 |');
  console.log('|---|---:|---:|---:|---:|');
  for (const list of result.lists) console.log(`| ${list.name} | ${list.p50.toFixed(1)} | ${list.p95.toFixed(1)} | ${list.rows} | ${list.failures} |`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  runsScale({ databaseUrl, ...runsScaleSizes(databaseUrl ? 'postgres' : 'pglite') })
    .then(
      (result) => (process.env.BENCH_JSON === '1' ? console.log(JSON.stringify(result)) : printRunsScale(result)),
      (error: unknown) => {
        console.error(error);
        process.exitCode = 1;
      },
    )
    .finally(stopAll);
}
