/**
 * The short version of `npm run fuzz` (docs/reliability.md, "Fuzz"), in `npm test`: the same
 * generators, fixture and checks (test/fuzz/), in process against a listening test app with a
 * worker, 600 requests with a fixed seed. Every answer must arrive before the deadline, none may
 * be a 5xx, every 4xx must be in the error envelope (or the media 422 shape), streams must end
 * with [DONE]. Findings already reported and not yet fixed in the product are listed in
 * known-findings.ts: requests that hit one are counted and printed, not failed; an entry is
 * removed when its fix lands (the test then guards it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScryptHasher } from '../../api/src/console/password-hasher.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { startTestWorker, type TestWorker } from '../helpers/test-worker.ts';
import { createFixture, type FuzzFixture } from './fixture.ts';
import { KNOWN_FINDINGS } from './known-findings.ts';
import { type RunStats, runRequests } from './runner.ts';

const SEED = 20250602;
const REQUESTS = 600;

let t: ListeningApp;
let worker: TestWorker;
let fixture: FuzzFixture;

beforeAll(async () => {
  t = await startListeningApp({
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SIMULATE_PROVIDERS: 'true',
      BODY_READ_TIMEOUT_MS: '1000',
      MEDIA_WAIT_TIMEOUT_MS: '15000',
      DEMO_VIDEO_RENDER_MS: '200',
      VIDEO_POLL_INTERVAL_MS: '200',
    },
    // Sign-ins are part of the mix: a cheaper scrypt cost keeps them fast (the rules are the same).
    services: { passwordHasher: createScryptHasher({ N: 2 ** 10, r: 8, p: 1 }) },
  });
  worker = await startTestWorker(t.config);
  fixture = await createFixture(t.origin, TEST_ADMIN_TOKEN);
}, 60_000);

afterAll(async () => {
  await worker?.close();
  await t?.close();
});

describe(`fuzz (short): ${REQUESTS} generated requests, seed ${SEED}`, () => {
  let stats: RunStats;

  it('every answer arrives, parses, is below 500 and in the error envelope when 4xx', async () => {
    stats = await runRequests({
      origin: t.origin,
      fixture,
      seed: SEED,
      count: REQUESTS,
      concurrency: 16,
      deadlineMs: 10_000,
      // The page of a console not built yet is the documented 503 (CI may not have built it).
      check: { consolePagesMayBeUnbuilt: true },
      known: KNOWN_FINDINGS,
      knownAreFailures: false,
    });
    const known = Object.entries(stats.known);
    if (known.length > 0)
      console.log(`known findings hit (not failed): ${known.map(([id, n]) => `${id} ×${n}`).join(', ')}`);
    const failing = stats.counterexamples.filter((e) => e.known === undefined);
    expect(failing, JSON.stringify(failing, null, 2)).toEqual([]);
    expect(stats.sent).toBe(REQUESTS);
    expect(stats.fiveXx).toBe(0);
    expect(stats.answerless).toBe(0);
    expect(stats.violations).toEqual({
      answered: 0,
      'well-formed': 0,
      'no-5xx': 0,
      envelope: 0,
      'request-id': 0,
      'stream-done': 0,
    });
  }, 120_000);

  it('reached every endpoint group, and every endpoint group got answers other than errors', () => {
    for (const [group, s] of Object.entries(stats.byGroup)) {
      expect(s.sent, group).toBeGreaterThan(0);
      const ok = Object.entries(s.statuses).filter(
        ([status]) => status.startsWith('2') || status.startsWith('3'),
      );
      // Unknown paths and malformed HTTP are errors by design.
      if (group !== 'raw' && group !== 'unknown')
        expect(ok.length, `${group}: ${JSON.stringify(s.statuses)}`).toBeGreaterThan(0);
    }
  });

  it('keeps the money consistent: every wallet equals its ledger', async () => {
    expect(await t.services.billing.checkLedger()).toEqual([]);
  });
});
