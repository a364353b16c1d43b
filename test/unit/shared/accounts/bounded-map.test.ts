import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../../../shared/src/accounts/bounded-map.ts';

describe('BoundedMap', () => {
  it('keeps at most its capacity, dropping the least recently used', () => {
    const map = new BoundedMap<string, number>(3);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect(map.get('a')).toBe(1);
    map.set('d', 4);
    expect(map.size).toBe(3);
    expect(map.get('b')).toBeUndefined();
    expect([map.get('a'), map.get('c'), map.get('d')]).toEqual([1, 3, 4]);
  });

  it('replaces, deletes and deletes by value', () => {
    const map = new BoundedMap<string, number>(10);
    for (const [key, value] of Object.entries({ a: 1, b: 2, c: 3, d: 4 })) map.set(key, value);
    map.set('a', 10);
    map.delete('b');
    map.deleteWhere((value) => value % 2 === 0);
    expect(map.size).toBe(1);
    expect(map.get('c')).toBe(3);
    map.clear();
    expect(map.size).toBe(0);
  });

  it('refuses a capacity below one', () => {
    expect(() => new BoundedMap(0)).toThrow(/capacity/);
  });
});
