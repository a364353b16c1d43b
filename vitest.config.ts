import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least four files at a time: most of the suite waits on sockets, timers and child
    // processes, not on the CPU. On a 2-core machine the suite took about 11 minutes with Vitest's
    // default (one worker per core) and 3 to 5.5 with four (depending on the machine).
    maxWorkers: Math.max(4, availableParallelism()),
    reporters: ['default', './test/setup/summary-reporter.ts'],
  },
});
