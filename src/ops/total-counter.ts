import { Counter, type Registry } from 'prom-client';

/**
 * A Prometheus counter read at each scrape from a running total kept elsewhere (a thread's
 * CPU time, the embedded store's counters): it only ever adds what the total gained since.
 */
export function totalCounter(registry: Registry, name: string, help: string, total: () => number | undefined): void {
  let counted = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const value = total();
      if (value === undefined || value <= counted) return;
      this.inc(value - counted);
      counted = value;
    },
  });
}
