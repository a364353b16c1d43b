/**
 * Loaded into the processes `npm run bench` measures (`node --import <this file> api/src/main.ts`),
 * without changing them: on SIGUSR2, with `BENCH_MEMORY_DIR` set, the process writes its resident
 * set and each V8 heap space's committed size to `<dir>/<pid>.memory.json` (what a resident-memory
 * line is made of). Read by ./memory.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';

const dir = process.env.BENCH_MEMORY_DIR;
if (dir !== undefined && dir !== '') {
  process.on('SIGUSR2', () => {
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [space.space_name, space.physical_space_size]),
    );
    try {
      mkdirSync(dir, { recursive: true });
      const memory = { t: Date.now(), rss: process.memoryUsage.rss(), spaces };
      writeFileSync(join(dir, `${process.pid}.memory.json`), JSON.stringify(memory));
    } catch {
      // The bench's scratch folder is gone: nothing to record into.
    }
  });
}
