import { readdirSync, readFileSync } from 'node:fs';
import { Pool } from 'undici';

export type LoadResult = { requests: number; errors: number; seconds: number; latenciesMs: number[] };

/** Keeps `concurrency` requests in flight for `seconds`, reading every body to the end. */
export async function runLoad(options: { url: string; key?: string; body: string; concurrency: number; seconds: number }): Promise<LoadResult> {
  const target = new URL(options.url);
  const pool = new Pool(target.origin, { connections: options.concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.key && { authorization: `Bearer ${options.key}` }) };
  const latenciesMs: number[] = [];
  let errors = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        const response = await pool.request({ path: `${target.pathname}/chat/completions`, method: 'POST', headers, body: options.body });
        await response.body.text();
        if (response.statusCode !== 200) errors += 1;
        else latenciesMs.push(performance.now() - started);
      } catch {
        errors += 1;
      }
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - began) / 1000;
  await pool.close();
  return { requests: latenciesMs.length, errors, seconds, latenciesMs };
}

/**
 * user+system CPU seconds that PostgreSQL's backends serving `database` have used so far:
 * the processes on this machine whose title names it (Linux /proc). NaN when there are
 * none to see (a server elsewhere). Background processes shared by every database (WAL
 * writer, checkpointer) are not counted.
 */
export function databaseServerCpuSeconds(database: string): number {
  let seconds = 0;
  let seen = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!title.startsWith('postgres:') || !title.includes(` ${database} `)) continue;
      seconds += cpuSeconds(Number(entry));
      seen = true;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return seen ? seconds : Number.NaN;
}

/** user+system CPU seconds a process has used so far (Linux /proc). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / 100;
}

export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
