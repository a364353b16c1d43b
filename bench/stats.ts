/** The finite values, in ascending order. */
export function sortedFinite(values: readonly number[]): number[] {
  return values.filter(Number.isFinite).sort((a, b) => a - b);
}

/** The value below which `fraction` of `sorted` (ascending) lie, by nearest rank; NaN for none. */
export function percentileOfSorted(sorted: ArrayLike<number>, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

/** The value below which `fraction` of the finite values lie (nearest rank); NaN for none. */
export function percentile(values: readonly number[], fraction: number): number {
  return percentileOfSorted(sortedFinite(values), fraction);
}

/** The median of the finite values (the upper of the two middle ones of an even count); NaN for none. */
export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}
