import type { Metric, Registry } from 'prom-client';

/**
 * A counter and a histogram for the request path, in plain numbers per label set, that
 * prom-client's registry reads at scrape time like its own. prom-client's `inc()` and
 * `observe()` take a labels object and hash and check it on every call: eight calls per
 * gateway request were about 3% of its CPU in profiles. Here the caller passes the label
 * values in `labelNames` order and a label set is found by one Map lookup on its joined
 * values. The exposition is prom-client's own (a test holds the two to the same text).
 */
type Series<Value> = { labels: Record<string, string>; value: Value };
/** What prom-client's registry reads from a metric at scrape time (its own classes' get()). */
type Scraped = {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>;
};

/** Series by label values, one level of maps per label: the last level holds the series. */
type SeriesTree<Value> = Map<string, SeriesTree<Value> | Series<Value>>;

abstract class FastMetric<Value> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly #tree: SeriesTree<Value> = new Map();
  readonly #series: Array<Series<Value>> = [];

  constructor(config: { name: string; help: string; labelNames: readonly string[]; registers: Registry[] }) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    // The registry reads any object with a name and get(); its types name only its own classes.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /**
   * The series of these label values, created on first use (label cardinality is bounded by
   * the callers). Found one label at a time: the values are strings the caller keeps (model
   * ids, statuses), whose hashes V8 has already, where a key joined per call was a new
   * string to allocate and hash, about 0.6 kB a gateway request.
   */
  protected series(values: readonly string[]): Series<Value> {
    let level = this.#tree;
    const last = values.length - 1;
    for (let index = 0; index < last; index += 1) {
      const value = values[index] ?? '';
      let next = level.get(value) as SeriesTree<Value> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const value = values[last] ?? '';
    let found = level.get(value) as Series<Value> | undefined;
    if (found === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, index) => (labels[name] = values[index] ?? ''));
      found = { labels, value: this.initial() };
      level.set(value, found);
      this.#series.push(found);
    }
    return found;
  }

  protected abstract initial(): Value;

  protected allSeries(): IterableIterator<Series<Value>> {
    return this.#series.values();
  }

  reset(): void {
    this.#tree.clear();
    this.#series.length = 0;
  }
}

export class FastCounter extends FastMetric<number> {
  /** Read by the registry itself (OpenMetrics output renames counters). */
  readonly type = 'counter';

  inc(values: readonly string[], amount = 1): void {
    this.series(values).value += amount;
  }

  protected initial(): number {
    return 0;
  }

  get(): Scraped {
    return { name: this.name, help: this.help, type: this.type, aggregator: 'sum', values: [...this.allSeries()].map(({ labels, value }) => ({ labels, value })) };
  }
}

type Buckets = { counts: number[]; sum: number; count: number };

export class FastHistogram extends FastMetric<Buckets> {
  readonly type = 'histogram';
  readonly #upperBounds: readonly number[];

  constructor(config: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; registers: Registry[] }) {
    super(config);
    this.#upperBounds = config.buckets;
  }

  observe(values: readonly string[], value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const buckets = this.series(values).value;
    buckets.sum += value;
    buckets.count += 1;
    // Counted in the first bucket that holds it (a loop, not a closure per call); get() makes them cumulative.
    const bounds = this.#upperBounds;
    for (let index = 0; index < bounds.length; index += 1) {
      if (value <= (bounds[index] ?? Number.POSITIVE_INFINITY)) {
        buckets.counts[index] = (buckets.counts[index] ?? 0) + 1;
        return;
      }
    }
  }

  protected initial(): Buckets {
    return { counts: this.#upperBounds.map(() => 0), sum: 0, count: 0 };
  }

  get(): Scraped {
    const values: Scraped['values'] = [];
    for (const { labels, value } of this.allSeries()) {
      let cumulative = 0;
      this.#upperBounds.forEach((bound, index) => {
        cumulative += value.counts[index] ?? 0;
        values.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: value.count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: value.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: value.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: 'sum', values };
  }
}
