import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WatchList } from '../../../../api/src/plugins/watch-list.ts';

interface Entry {
  readonly id: number;
  at: number;
}

const entries = (count: number): Entry[] => Array.from({ length: count }, (_, id) => ({ id, at: -1 }));

function ids(list: WatchList<Entry>): number[] {
  const seen: number[] = [];
  list.forEach((entry) => {
    seen.push(entry.id);
  });
  return seen.sort((a, b) => a - b);
}

describe('WatchList', () => {
  it('holds exactly the entries added and not deleted, whatever the order of operations', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(19)), { maxLength: 200 }), (operations) => {
        const pool = entries(20);
        const list = new WatchList<Entry>();
        const model = new Set<number>();
        for (const [add, index] of operations) {
          const entry = pool[index] as Entry;
          if (add) {
            list.add(entry);
            model.add(entry.id);
          } else {
            list.delete(entry);
            model.delete(entry.id);
          }
          expect(list.size).toBe(model.size);
        }
        expect(ids(list)).toEqual([...model].sort((a, b) => a - b));
        for (const entry of pool) expect(entry.at >= 0).toBe(model.has(entry.id));
      }),
    );
  });

  it('visits each entry once while the visit deletes it, or deletes entries not visited yet', () => {
    const pool = entries(6);
    const list = new WatchList<Entry>();
    for (const entry of pool) list.add(entry);
    const visited: number[] = [];
    list.forEach((entry) => {
      visited.push(entry.id);
      list.delete(entry);
      // Deleting one not visited yet moves the last entry into its place: no entry twice, none lost.
      if (entry.id === 4) list.delete(pool[1] as Entry);
    });
    expect(visited.sort()).toEqual([0, 2, 3, 4, 5]);
    expect(list.size).toBe(0);
  });

  it('ignores a second add, a delete of an entry it does not hold, and forgets all on clear', () => {
    const [a, b, c] = entries(3) as [Entry, Entry, Entry];
    const list = new WatchList<Entry>();
    list.add(a);
    list.add(a);
    list.delete(b);
    expect(list.size).toBe(1);
    list.add(b);
    list.add(c);
    list.clear();
    expect(list.size).toBe(0);
    expect([a.at, b.at, c.at]).toEqual([-1, -1, -1]);
    expect(ids(list)).toEqual([]);
  });
});
