/**
 * The bench's profile summary: with the load's window, only the samples stamped inside it count
 * (start-up and shutdown stay out); a window that no sample falls in gives the whole profile,
 * marked as such, instead of an empty summary.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { summarizeProfile } from '../../../bench/profile-summary.ts';

const ROOT = '/srv/gateway';
const own = (name: string, line: number) => ({
  functionName: name,
  url: `${pathToFileURL(ROOT).href}/api/src/app.ts`,
  lineNumber: line,
});

/** Start-up work for 3 s (one sample a second), then the load's handler for 4 s, then 2 s idle. */
function writeProfile(): string {
  const nodes = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 3, 4] },
    { id: 2, callFrame: own('startUp', 9) },
    { id: 3, callFrame: own('handle', 19) },
    { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
  ];
  const samples = [2, 2, 2, 3, 3, 3, 3, 4, 4];
  const profile = {
    nodes,
    startTime: 1_000_000,
    endTime: 10_000_000,
    samples,
    // Each sample 1 s after the previous one (the first 1 s after the start).
    timeDeltas: samples.map(() => 1_000_000),
  };
  const file = join(mkdtempSync(join(tmpdir(), 'profile-')), 'CPU.cpuprofile');
  writeFileSync(file, JSON.stringify(profile));
  return file;
}

describe('summarizeProfile', () => {
  it('counts every sample without a window, start-up included', () => {
    const summary = summarizeProfile(writeProfile(), ROOT);
    expect(summary.windowed).toBe(false);
    expect(summary.totalMs).toBe(9_000);
    expect(summary.busyMs).toBe(7_000);
    expect(summary.ownInclusive.map((s) => s.name)).toEqual([
      'handle api/src/app.ts:20',
      'startUp api/src/app.ts:10',
    ]);
  });

  it("counts only the window's samples: the load, not the start-up", () => {
    // Samples are stamped at 2 … 10 s; the load's are at 5 … 8 s.
    const summary = summarizeProfile(writeProfile(), ROOT, { fromUs: 4_500_000, toUs: 8_500_000 });
    expect(summary.windowed).toBe(true);
    expect(summary.busyMs).toBe(4_000);
    expect(summary.ownInclusive).toEqual([{ name: 'handle api/src/app.ts:20', ms: 4_000, pct: 100 }]);
  });

  it('falls back to the whole profile, marked unwindowed, when no sample is inside the window', () => {
    const summary = summarizeProfile(writeProfile(), ROOT, { fromUs: 50_000_000, toUs: 60_000_000 });
    expect(summary.windowed).toBe(false);
    expect(summary.busyMs).toBe(7_000);
  });
});
