import type { Registry } from 'prom-client';
import type { StoreDurabilityCounts } from '../store/store-durability-counters.ts';
import { totalCounter } from './total-counter.ts';

/** The embedded store's fsyncs and checkpoints (PGlite; StoreDurabilityCounters), as the engine's thread counts them. */
export function registerDurabilityMetrics(registry: Registry, counts: () => StoreDurabilityCounts | undefined): void {
  totalCounter(registry, 'junction_embedded_store_fsyncs_total', "fsyncs of the embedded store's files (commits, checkpoints)", () => counts()?.syncs);
  totalCounter(registry, 'junction_embedded_store_fsync_seconds_total', "Time the embedded store's engine spent in fsync", () => counts()?.syncSeconds);
  totalCounter(registry, 'junction_embedded_store_checkpoints_total', "Checkpoints of the embedded store's engine (its own checkpointer's)", () => counts()?.checkpoints);
  totalCounter(registry, 'junction_embedded_store_checkpoint_seconds_total', "Time the embedded store's engine spent in checkpoints", () => counts()?.checkpointSeconds);
  totalCounter(registry, 'junction_embedded_store_checkpoint_failures_total', 'Checkpoints of the embedded store that failed (tried again at the next look)', () => counts()?.checkpointFailures);
}
