/** A measured process's memory, asked for by a signal (./memory-preload.ts answers it). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The preload, for `node --import <url>`; the process writes into `BENCH_MEMORY_DIR`. */
export const MEMORY_PRELOAD = new URL('./memory-preload.ts', import.meta.url).href;

/** A process's resident memory in MB, and what V8's heap holds of it (committed, by space). */
export interface MemoryShare {
  readonly rssMb: number;
  /** The young generation: objects not yet promoted, both semi-spaces. */
  readonly newSpaceMb: number;
  readonly oldSpaceMb: number;
  /** Code, large objects and V8's other spaces. */
  readonly otherHeapMb: number;
  /** Resident but outside V8's heap: Node itself, buffers, native modules (SQLite), stacks. */
  readonly outsideHeapMb: number;
}

const MB = 2 ** 20;
/** What the preload writes: when, the resident set and each heap space's committed bytes. */
type Recorded = { t: number; rss: number; spaces: Record<string, number> };

/**
 * Asks the process `pid`, which writes into `dir`, for its memory (SIGUSR2) and reads it back;
 * null when it does not answer within two seconds (no preload, or gone).
 */
export async function memoryOf(dir: string, pid: number): Promise<MemoryShare | null> {
  const file = join(dir, `${pid}.memory.json`);
  const asked = Date.now();
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 2_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (!existsSync(file)) continue;
    const memory = JSON.parse(readFileSync(file, 'utf8')) as Recorded;
    if (memory.t < asked) continue;
    const space = (name: string) => (memory.spaces[name] ?? 0) / MB;
    const heap = Object.values(memory.spaces).reduce((sum, bytes) => sum + bytes, 0) / MB;
    const newSpace = space('new_space') + space('new_large_object_space');
    return {
      rssMb: memory.rss / MB,
      newSpaceMb: newSpace,
      oldSpaceMb: space('old_space'),
      otherHeapMb: heap - newSpace - space('old_space'),
      outsideHeapMb: memory.rss / MB - heap,
    };
  }
  return null;
}
