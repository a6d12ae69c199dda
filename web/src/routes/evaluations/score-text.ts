/** A score as the tables show it: two decimals, or a dash when nothing was scored. */
export const scoreText = (score: number | null | undefined): string => (score == null ? '—' : score.toFixed(2));

/** A mean with its 95% interval: `0.67 [0.33, 1.00]`. */
export const intervalText = (interval: { mean: number | null; low: number | null; high: number | null }): string =>
  interval.mean === null ? '—' : `${scoreText(interval.mean)} [${scoreText(interval.low)}, ${scoreText(interval.high)}]`;

/** The sign a change is written with: a minus sign (−), not a hyphen, and ± for no change. */
function signOf(delta: number): string {
  if (delta > 0) return '+';
  if (delta < 0) return '−';
  return '±';
}

/** A signed change: `+0.25`, `−1.00`, `±0.00`. */
export const deltaText = (delta: number | null): string => (delta === null ? '—' : `${signOf(delta)}${Math.abs(delta).toFixed(2)}`);
