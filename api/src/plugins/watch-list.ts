/** An entry of a `WatchList`: its place in the list, -1 while it is in none. */
export interface Listed {
  at: number;
}

/**
 * The in-flight requests a server-wide timer watches, added and removed once per request: a list
 * with swap-removal, not a Set or Map. A long-lived Set or Map that gains and loses an entry per
 * request is rebuilt every few dozen requests, and V8 leaves the entries of each table it replaced
 * in place; the young-generation collector cannot tell that table is dead, so every request it
 * names (request, reply, their buffers and promises) survives into the old generation until the
 * next full collection. Measured on the api under load, for the body read deadline: 3.5–5 MB
 * promoted per scavenge and 12–25 ms scavenges with a Set, about 0.8 MB and 3–8 ms with this list,
 * which only ever drops its references (bench/RESULTS.md, "Garbage collection").
 */
export class WatchList<T extends Listed> {
  readonly #entries: T[] = [];

  get size(): number {
    return this.#entries.length;
  }

  add(entry: T): void {
    if (entry.at >= 0) return;
    entry.at = this.#entries.length;
    this.#entries.push(entry);
  }

  /** Removes the entry; nothing for one not in the list. */
  delete(entry: T): void {
    if (entry.at < 0 || this.#entries[entry.at] !== entry) return;
    const last = this.#entries.pop() as T;
    if (last !== entry) {
      this.#entries[entry.at] = last;
      last.at = entry.at;
    }
    entry.at = -1;
  }

  /**
   * Visits every entry in the list when the call starts, once, last first; `visit` may delete the
   * entry it is given. An entry deleted by another visit before its turn is not visited.
   */
  forEach(visit: (entry: T) => void): void {
    const pending = this.#entries.slice();
    for (let i = pending.length - 1; i >= 0; i--) {
      const entry = pending[i] as T;
      if (entry.at >= 0) visit(entry);
    }
  }

  clear(): void {
    for (const entry of this.#entries) entry.at = -1;
    this.#entries.length = 0;
  }
}
