import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type BenchFigures, renderBenchmarkTable, replaceBenchmarkTable, TABLE_END, TABLE_START } from '../../../bench/benchmark-page.ts';

const row = (target: string, mode: 'json' | 'stream', rpsRatio: number) => ({
  target,
  mode,
  rps: 1000,
  rpsRatio,
  p50: 10,
  p99: 20,
  p99Ratio: 1.4,
  cpuMicros: 300,
  cpuRatio: 1.7,
  databaseCpuMicros: 50,
  withoutDatabaseCpuRatio: 1.6,
  withDatabaseCpuRatio: 1.9,
  errors: 0,
  rounds: 5,
});

const figures: BenchFigures = {
  date: '2026-12-06T03:00:00.000Z',
  commit: 'abc1234',
  machine: { cores: 2, cpu: 'Test CPU', node: 'v24.1.0' },
  throughput: [row('bare fastify+undici', 'json', 1), row('junction (pglite)', 'json', 0.71), row('junction (pglite)', 'stream', 0.55), row('junction (postgres)', 'json', 0.8)],
  agentTurn: [{ engine: 'pglite', gatewayP50Ms: 1, turns: { 'chat plain': { p50Ms: 2.5, overheadMs: 1.5 } } }],
};

describe('the benchmark page', () => {
  it('renders one row per figure with both engines side by side, naming the commit and machine', () => {
    const table = renderBenchmarkTable(figures);
    expect(table).toContain('Measured 2026-12-06 on commit `abc1234`: 2 cores (Test CPU), Node v24.1.0.');
    expect(table).toContain('| JSON req/s × bare proxy | ≥ 0.6× | 0.71× | 0.80× |');
    // The stream row ran on PGlite only: PostgreSQL's cell says so instead of inventing a figure.
    expect(table).toContain('| stream req/s × bare proxy | ≥ 0.5× | 0.55× | — |');
    expect(table).toContain('| plain agent turn over its model call (chat) | ≤ 3 ms | +1.50 ms | — |');
    expect(table).not.toContain('footprint');
  });

  it('replaces only what lies between the markers', () => {
    const page = `# Title\n\nintro\n\n${TABLE_START}\nold table\n${TABLE_END}\n\n## After\n`;
    const next = replaceBenchmarkTable(page, 'new table');
    expect(next).toBe(`# Title\n\nintro\n\n${TABLE_START}\nnew table\n${TABLE_END}\n\n## After\n`);
    expect(() => replaceBenchmarkTable('# no markers', 'x')).toThrow(/markers/);
  });

  it('docs/benchmarks.md carries the markers the bench writes between', () => {
    const page = readFileSync(new URL('../../../docs/benchmarks.md', import.meta.url), 'utf8');
    expect(page.indexOf(TABLE_START)).toBeGreaterThan(0);
    expect(page.indexOf(TABLE_END)).toBeGreaterThan(page.indexOf(TABLE_START));
  });
});
