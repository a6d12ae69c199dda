/**
 * `BENCH_BASELINE=<git revision>`: this tree's gateway against the same gateway built from
 * that revision, in one run, on PGlite (and PostgreSQL when DATABASE_URL is set), JSON and
 * streaming. Both are compiled as `npm start` compiles the server, serve the same fake
 * upstream from stores or databases of their own, and are measured in rounds taken turn
 * about (the order flipped every round); each figure is the median of its rounds, each
 * ratio the median of the rounds' after/before ratios.
 *
 * Why: these machines go through phases in which the same server's figures move by a
 * third or more within minutes, more than most changes move them, so a change is judged
 * against its baseline measured beside it rather than against another run's table.
 *
 * The baseline is checked out into a temporary git worktree that shares this tree's
 * node_modules, compiled there with its own build settings, and removed afterwards.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allocatorDefaults } from '../src/ops/allocator-env.ts';
import { createScratchDatabase } from '../test/support/test-database.ts';
import { startScript } from './child-process.ts';
import { compiledScript } from './compiled-scripts.ts';
import { runLoad } from './load.ts';
import { loadFor, measureRound, median, type RoundFigures, type Target, WARM_UP_SECONDS } from './throughput.ts';

export type CompareRow = {
  engine: 'pglite' | 'postgres';
  mode: 'json' | 'stream';
  before: { rps: number; cpuMicros: number; databaseCpuMicros: number };
  after: { rps: number; cpuMicros: number; databaseCpuMicros: number };
  /** Medians of each round's after/before ratio. */
  rpsRatio: number;
  cpuRatio: number;
  databaseCpuRatio: number;
  errors: number;
};

export type CompareResult = { baseline: string; rounds: number; rows: CompareRow[] };

const ROOT = new URL('..', import.meta.url).pathname;

export async function compareBuilds(options: { baseline: string; seconds: number; rounds: number; concurrency: number; databaseUrl: string | undefined }): Promise<CompareResult> {
  const revision = execFileSync('git', ['rev-parse', '--verify', `${options.baseline}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const worktree = mkdtempSync(join(tmpdir(), 'junction-baseline-'));
  const scratch: Array<{ drop(): Promise<void> }> = [];
  const children: Array<Awaited<ReturnType<typeof startScript>>['child']> = [];
  try {
    execFileSync('git', ['worktree', 'add', '--detach', '--force', worktree, revision], { cwd: ROOT, stdio: 'ignore' });
    symlinkSync(join(ROOT, 'node_modules'), join(worktree, 'node_modules'));
    // The console's build, so the baseline serves what this tree serves (and logs no warning about it).
    if (existsSync(join(ROOT, 'web/dist')) && existsSync(join(worktree, 'web'))) symlinkSync(join(ROOT, 'web/dist'), join(worktree, 'web/dist'));
    const { bundleServer } = (await import(join(worktree, 'scripts/server-bundle.mjs'))) as { bundleServer(options: { entryPoints: string[]; outdir: string }): Promise<void> };
    await bundleServer({ entryPoints: ['bench/gateway-server.ts'], outdir: 'bench-build' });
    const scripts = { before: join(worktree, 'bench-build/gateway-server.js'), after: await compiledScript('bench/gateway-server.ts') };

    const upstream = await startScript('bench/fake-upstream.ts', {});
    children.push(upstream.child);
    const start = async (script: string, databaseUrl: string | undefined): Promise<Target> => {
      let url = '';
      let database: string | undefined;
      if (databaseUrl) {
        const created = await createScratchDatabase(databaseUrl, 'junction_compare');
        scratch.push(created);
        url = created.url;
        database = new URL(created.url).pathname.slice(1);
      }
      const started = await startScript(script, { UPSTREAM_URL: upstream.info.url ?? '', DATABASE_URL: url, ...allocatorDefaults(process.env) });
      children.push(started.child);
      return {
        name: script,
        pid: started.pid,
        url: `${started.info.url}/v1`,
        ...(started.info.key && { key: started.info.key }),
        ...(database ? { database } : { metricsUrl: `${started.info.url}/metrics` }),
      };
    };

    const rows: CompareRow[] = [];
    const engines = [{ engine: 'pglite' as const, databaseUrl: undefined }, ...(options.databaseUrl ? [{ engine: 'postgres' as const, databaseUrl: options.databaseUrl }] : [])];
    for (const { engine, databaseUrl } of engines) {
      const before = await start(scripts.before, databaseUrl);
      const after = await start(scripts.after, databaseUrl);
      for (const stream of [false, true]) {
        for (const target of [before, after]) await runLoad({ ...loadFor(target, stream, options.concurrency), seconds: WARM_UP_SECONDS });
        const figures = { before: [] as RoundFigures[], after: [] as RoundFigures[] };
        for (let round = 0; round < options.rounds; round += 1) {
          const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
          for (const side of order) figures[side].push(await measureRound(side === 'before' ? before : after, stream, options.seconds, options.concurrency));
        }
        rows.push(summarise(engine, stream, figures.before, figures.after));
      }
    }
    return { baseline: `${options.baseline} (${revision.slice(0, 7)})`, rounds: options.rounds, rows };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((done) => setTimeout(done, 500));
    for (const database of scratch) await database.drop().catch(() => undefined);
    try {
      execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT, stdio: 'ignore' });
    } catch {
      // Not registered (the checkout failed): the folder alone is removed below.
    }
    rmSync(worktree, { recursive: true, force: true });
  }
}

function summarise(engine: 'pglite' | 'postgres', stream: boolean, before: RoundFigures[], after: RoundFigures[]): CompareRow {
  const figures = (rounds: RoundFigures[]) => ({
    rps: median(rounds.map((round) => round.rps)),
    cpuMicros: median(rounds.map((round) => round.cpuMicros)),
    databaseCpuMicros: median(rounds.map((round) => round.databaseCpuMicros)),
  });
  const ratio = (pick: (round: RoundFigures) => number) => median(after.map((round, index) => pick(round) / pick(before[index] as RoundFigures)));
  return {
    engine,
    mode: stream ? 'stream' : 'json',
    before: figures(before),
    after: figures(after),
    rpsRatio: ratio((round) => round.rps),
    cpuRatio: ratio((round) => round.cpuMicros),
    databaseCpuRatio: ratio((round) => round.databaseCpuMicros),
    errors: [...before, ...after].reduce((sum, round) => sum + round.errors, 0),
  };
}

export function printComparison(result: CompareResult, options: { seconds: number }): void {
  const fixed = (value: number, digits: number) => (Number.isNaN(value) ? '-' : value.toFixed(digits));
  console.log(
    `\ncompare: this tree against ${result.baseline}, ${result.rounds} rounds of ${options.seconds} s each, turn about, after ${WARM_UP_SECONDS} s of warm-up.` +
      "\nFigures are medians of the rounds; ratios (after/before) the medians of each round's ratio.\n",
  );
  console.log('engine    mode    req/s before → after  ratio   CPU µs/req before → after  ratio   DB µs/req before → after  ratio   errors');
  for (const row of result.rows) {
    console.log(
      `${row.engine.padEnd(9)} ${row.mode.padEnd(6)}  ${fixed(row.before.rps, 0).padStart(6)} → ${fixed(row.after.rps, 0).padStart(6)}  ${fixed(row.rpsRatio, 3).padStart(6)}   ${fixed(row.before.cpuMicros, 0).padStart(8)} → ${fixed(row.after.cpuMicros, 0).padStart(6)}     ${fixed(row.cpuRatio, 3).padStart(6)}   ${fixed(row.before.databaseCpuMicros, 1).padStart(7)} → ${fixed(row.after.databaseCpuMicros, 1).padStart(6)}     ${fixed(row.databaseCpuRatio, 3).padStart(6)}   ${row.errors}`,
    );
  }
  console.log("\n\"DB\" is PostgreSQL's backends serving the target's database, or PGlite's engine thread (inside the process, so also in its CPU).");
}
