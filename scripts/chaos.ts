/**
 * `npm run chaos`: the standing chaos suite (test/chaos/run-chaos.ts) at full length, a few minutes:
 * SIGKILLs workers and api replicas under mixed media load, restarts Redis with its data and empty,
 * then checks that no job was lost, nothing was charged twice, every video is final, no hold is left
 * and the ledger check is clean. Prints a summary, writes the "Chaos" section of
 * docs/reliability.md, and exits 1 on any violation.
 *
 * Knobs (environment): CHAOS_SEED (default 1), CHAOS_SECONDS (load, default 180), CHAOS_CLIENTS
 * (default 12), CHAOS_KEEP=1 (keep the scratch folder even when all passes), CHAOS_WRITE=0 (do not
 * write docs/reliability.md).
 */
import { join } from 'node:path';
import { ROOT } from '../test/chaos/processes.ts';
import { markdownSection, summaryText, writeChaosSection } from '../test/chaos/report.ts';
import { FULL_OPTIONS, runChaos } from '../test/chaos/run-chaos.ts';

const num = (name: string, fallback: number): number => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative number`);
  return parsed;
};

async function main(): Promise<number> {
  const loadMs = num('CHAOS_SECONDS', FULL_OPTIONS.loadMs / 1000) * 1000;
  const scale = loadMs / FULL_OPTIONS.loadMs;
  const result = await runChaos({
    ...FULL_OPTIONS,
    seed: num('CHAOS_SEED', FULL_OPTIONS.seed),
    clients: num('CHAOS_CLIENTS', FULL_OPTIONS.clients),
    loadMs,
    firstEventMs: Math.round(FULL_OPTIONS.firstEventMs * scale),
    lastEventMs: Math.round(FULL_OPTIONS.lastEventMs * scale),
    keepScratch: process.env.CHAOS_KEEP === '1' ? 'always' : 'on-failure',
    log: (line) => process.stdout.write(`[chaos] ${line}\n`),
  });
  process.stdout.write(`\n${summaryText(result)}\n`);
  if (process.env.CHAOS_WRITE !== '0') {
    const path = join(ROOT, 'docs', 'reliability.md');
    writeChaosSection(path, markdownSection(result));
    process.stdout.write(`wrote the Chaos section of ${path}\n`);
  }
  return result.figures.violations.length === 0 ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stdout.write(`[chaos] ${signal}: stopping what this run started\n`);
    process.exit(130); // the runner's 'exit' listener kills its processes by pid
  });

main().then(
  (code) => {
    process.exit(code);
  },
  (err: unknown) => {
    console.error(`[chaos] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
