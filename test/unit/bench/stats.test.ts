import { describe, expect, it } from 'vitest';
import { median, percentile, percentileOfSorted, sortedFinite } from '../../../bench/stats.ts';

describe('bench statistics', () => {
  it('take the nearest rank of the finite values; the median is the upper middle of an even count', () => {
    expect(sortedFinite([3, Number.NaN, 1, Number.POSITIVE_INFINITY, 2])).toEqual([1, 2, 3]);
    expect(median([3, Number.NaN, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 0.99)).toBe(5);
    expect(percentileOfSorted([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.1)).toBe(2);
    expect(median([])).toBeNaN();
    expect(percentileOfSorted([], 0.5)).toBeNaN();
  });
});
