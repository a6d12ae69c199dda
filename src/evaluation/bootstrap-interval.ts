/** A mean with its 95% interval; `n` values went into it. */
export type MeanInterval = { mean: number | null; low: number | null; high: number | null; n: number };

const RESAMPLES = 2_000;

/**
 * The mean of `values` with a 95% percentile-bootstrap interval. Bootstrap rather than a
 * t interval: scores are bounded and often only 0 or 1 (exact, contains, tool calls), far
 * from normal on the small datasets teams evaluate, and a paired difference is the same
 * computation over the per-case differences. The generator is seeded (by the experiment),
 * so the same results always give the same interval.
 */
export function bootstrapMean(values: readonly number[], seed: number): MeanInterval {
  const n = values.length;
  if (n === 0) return { mean: null, low: null, high: null, n };
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  if (n === 1) return { mean, low: mean, high: mean, n };
  const random = mulberry32(seed);
  const means = new Float64Array(RESAMPLES);
  for (let resample = 0; resample < RESAMPLES; resample += 1) {
    let sum = 0;
    for (let draw = 0; draw < n; draw += 1) sum += values[Math.floor(random() * n)] ?? 0;
    means[resample] = sum / n;
  }
  means.sort();
  return { mean, low: means[Math.floor(RESAMPLES * 0.025)] ?? mean, high: means[Math.ceil(RESAMPLES * 0.975) - 1] ?? mean, n };
}

/** A small, fast, seedable generator: uniform numbers in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A seed from a text (an experiment id): FNV-1a. */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
