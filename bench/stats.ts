/** The median of the finite values (the upper of the two middle ones of an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The value below which `fraction` of the finite values lie (nearest rank); NaN for none. */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.floor(fraction * sorted.length));
  return sorted[rank] ?? Number.NaN;
}
