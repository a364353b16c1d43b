/**
 * The short chaos run in `npm test`: the runner of `npm run chaos` (test/chaos/run-chaos.ts) with
 * about 40 s of mixed load on 2 api replicas and 2 worker processes, one worker SIGKILLed, one api
 * SIGKILLed and Redis restarted with its data, asserting the same invariants: no job lost, no
 * double charge, every video final, no media job left unfinished, no hold left after the leases,
 * the ledger check clean, no 5xx from a live process. It starts its own redis-server, s3rver and
 * SQLite file (not the test stack's), and stops them.
 */
import { describe, expect, it } from 'vitest';
import { summaryText } from './report.ts';
import { runChaos, SHORT_OPTIONS } from './run-chaos.ts';

describe('chaos (short): kills and a Redis restart under mixed load', () => {
  it('loses no job, charges nothing twice, ends every video, leaves no hold, keeps the ledger clean', {
    // About 60-80 s; more on a slow machine, where the load waits for the last event.
    timeout: 180_000,
  }, async () => {
    const lines: string[] = [];
    const result = await runChaos({
      ...SHORT_OPTIONS,
      seed: Number(process.env.CHAOS_SEED ?? SHORT_OPTIONS.seed),
      log: (line) => lines.push(line),
    });
    const summary = `${lines.join('\n')}\n${summaryText(result)}`;
    const f = result.figures;
    expect(f.violations, summary).toEqual([]);
    expect(result.events.map((event) => event.action)).toEqual(['kill-worker', 'kill-api', 'restart-redis']);
    expect(f.jobsLost).toBe(0);
    expect(f.doubleCharges).toBe(0);
    expect(f.fivexx).toBe(0);
    expect(f.ledgerCheck).toEqual({ code: 0, verdict: 'consistent' });
    expect(f.holds.live).toBe(0);
    expect(f.videos.created).toBeGreaterThan(0);
    expect(f.videos.notFinal).toBe(0);
    expect(f.requests, summary).toBeGreaterThan(200);
    for (const kind of ['chat', 'chat-stream', 'embeddings', 'image', 'speech', 'transcription', 'video'])
      expect(
        f.histogram[kind]?.[kind === 'video' ? '202' : '200'] ?? 0,
        `${kind}\n${summary}`,
      ).toBeGreaterThan(0);
  });
});
