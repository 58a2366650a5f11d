// Small statistics helpers for the benchmark: medians and percentiles of samples.

export const percentile = (samples: readonly number[], p: number): number => {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  // Nearest-rank on the sorted samples, interpolating between neighbours.
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (rank - lo);
};

export const median = (samples: readonly number[]): number => percentile(samples, 50);

/** Operations per second for `count` operations that took `ms` milliseconds. */
export const perSecond = (count: number, ms: number): number => (count * 1000) / ms;

/** Relative spread of samples: (max - min) / median, to show how noisy a figure was. */
export const spread = (samples: readonly number[]): number => {
  if (samples.length === 0) return Number.NaN;
  return (Math.max(...samples) - Math.min(...samples)) / median(samples);
};
