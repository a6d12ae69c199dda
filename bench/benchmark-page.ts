import { readFileSync, writeFileSync } from 'node:fs';
import type { AgentTurnResult } from './agent-turn.ts';
import type { KnowledgeBenchResult } from './knowledge-search.ts';
import type { FootprintResult } from './server-footprint.ts';
import type { ThroughputRow } from './throughput.ts';

/** What one `npm run bench` measured: the parts that ran, and where. */
export type BenchFigures = {
  date: string;
  commit: string;
  machine: { cores: number; cpu: string; node: string };
  throughput?: ThroughputRow[];
  footprint?: FootprintResult[];
  agentTurn?: AgentTurnResult[];
  knowledge?: KnowledgeBenchResult[];
};

type Engine = 'pglite' | 'postgres';
type Row = { figure: string; target: string; cells: Record<Engine, string | undefined> };

export const TABLE_START = '<!-- bench:table -->';
export const TABLE_END = '<!-- /bench:table -->';

const ratio = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? undefined : `${value.toFixed(2)}×`);
const ms = (value: number | undefined) => (value === undefined ? undefined : `${value >= 0 ? '+' : ''}${value.toFixed(2)} ms`);

function throughputRows(rows: ThroughputRow[]): Row[] {
  const row = (figure: string, target: string, mode: 'json' | 'stream', read: (found: ThroughputRow) => number): Row => {
    const cell = (engine: Engine) => {
      const found = rows.find((entry) => entry.target === `junction (${engine})` && entry.mode === mode);
      return found ? ratio(read(found)) : undefined;
    };
    return { figure, target, cells: { pglite: cell('pglite'), postgres: cell('postgres') } };
  };
  return [
    row('JSON req/s × bare proxy', '≥ 0.6×', 'json', (found) => found.rpsRatio),
    row('stream req/s × bare proxy', '≥ 0.5×', 'stream', (found) => found.rpsRatio),
    row('JSON CPU per call × bare proxy', '≤ 2×', 'json', (found) => found.withoutDatabaseCpuRatio),
    row('stream CPU per call × bare proxy', '≤ 2×', 'stream', (found) => found.withoutDatabaseCpuRatio),
    row('JSON p99 × bare proxy', '≤ 2×', 'json', (found) => found.p99Ratio),
  ];
}

/** One cell per engine, from the result of that engine when the part ran on it. */
function perEngine<T extends { engine: string }>(results: T[], read: (result: T) => string | undefined): Record<Engine, string | undefined> {
  const cell = (engine: Engine) => {
    const result = results.find((entry) => entry.engine === engine);
    return result ? read(result) : undefined;
  };
  return { pglite: cell('pglite'), postgres: cell('postgres') };
}

function footprintRows(results: FootprintResult[]): Row[] {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  return [
    { figure: 'start on an existing store', target: '≤ 2 s', cells: perEngine(results, (result) => `${median(result.startSeconds).toFixed(2)} s`) },
    { figure: 'idle RSS 3 s after ready', target: '≤ 150 MB (PostgreSQL)', cells: perEngine(results, (result) => `${Math.round(result.idleRssMb)} MB`) },
    { figure: 'RSS that open streams add', target: '≤ 60 MB per 1,000', cells: perEngine(results, (result) => `${Math.round(result.streamsRssMb)} MB for ${result.streams}`) },
  ];
}

function agentRows(results: AgentTurnResult[]): Row[] {
  const turn = (kind: string) => perEngine(results, (result) => ms(result.turns[kind]?.overheadMs));
  return [
    { figure: 'plain agent turn over its model call (chat)', target: '≤ 3 ms', cells: turn('chat plain') },
    { figure: 'plain agent turn over its model call (responses)', target: '≤ 3 ms', cells: turn('responses plain') },
    { figure: 'knowledge agent turn over its model call', target: '≤ 8 ms', cells: turn('responses knowledge') },
  ];
}

function knowledgeRows(results: KnowledgeBenchResult[]): Row[] {
  const hybrid = (result: KnowledgeBenchResult) => {
    const timing = result.timings.find((entry) => entry.name.startsWith('hybrid'));
    return timing ? `${timing.p50.toFixed(2)} / ${timing.p95.toFixed(2)} ms` : undefined;
  };
  const chunks = results[0]?.chunks ?? 0;
  return [
    { figure: `hybrid search p50 / p95 at ${chunks.toLocaleString('en-US')} chunks`, target: 'p95 ≤ 15 ms', cells: perEngine(results, hybrid) },
    { figure: 'recall@10 among those chunks', target: '—', cells: perEngine(results, (result) => result.recallAt10.withDistractors.toFixed(2)) },
  ];
}

/** The page's table: one row per tracked figure, PGlite and PostgreSQL side by side. */
export function renderBenchmarkTable(figures: BenchFigures): string {
  const rows = [
    ...(figures.throughput ? throughputRows(figures.throughput) : []),
    ...(figures.footprint ? footprintRows(figures.footprint) : []),
    ...(figures.agentTurn ? agentRows(figures.agentTurn) : []),
    ...(figures.knowledge ? knowledgeRows(figures.knowledge) : []),
  ];
  const lines = [
    `Measured ${figures.date.slice(0, 10)} on commit \`${figures.commit}\`: ${figures.machine.cores} cores (${figures.machine.cpu}), Node ${figures.machine.node}.`,
    '',
    '| figure | target | PGlite | PostgreSQL |',
    '|---|---|---:|---:|',
    ...rows.map((row) => `| ${row.figure} | ${row.target} | ${row.cells.pglite ?? '—'} | ${row.cells.postgres ?? '—'} |`),
  ];
  return lines.join('\n');
}

/** Replaces the table between the page's markers; the rest of the page is left as written. */
export function replaceBenchmarkTable(page: string, table: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the benchmark page has no ${TABLE_START} … ${TABLE_END} markers`);
  return `${page.slice(0, start + TABLE_START.length)}\n${table}\n${page.slice(end)}`;
}

export function writeBenchmarkPage(file: string, figures: BenchFigures): void {
  writeFileSync(file, replaceBenchmarkTable(readFileSync(file, 'utf8'), renderBenchmarkTable(figures)));
}
