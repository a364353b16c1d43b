import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stageTimingOf, stageTimingSection } from '../../../bench/stage-timing.ts';

/** Rows as the preload writes them: [pre, send, upstream, post, arrivedAt]. */
const rows = (list: number[][]) => `${list.map((row) => JSON.stringify(row)).join('\n')}\n`;

describe('stage timing (bench)', () => {
  it('sums up the requests of the last seconds of every process of a role, leaving the warm-up out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stages-'));
    // A warm-up request 20 s before the last one, then 100 requests in the measured second, over two processes.
    const measured = Array.from({ length: 100 }, (_, i) => [i + 1, 0.5, 50 + i / 10, 0.1, 30_000 + i]);
    writeFileSync(join(dir, 'api-1.jsonl'), rows([[999, 999, 999, 999, 10_000], ...measured.slice(0, 50)]));
    writeFileSync(join(dir, 'api-2.jsonl'), rows(measured.slice(50)));
    writeFileSync(join(dir, 'floor-3.jsonl'), rows([[1, 1, 1, 1, 30_000]]));
    const timing = stageTimingOf(dir, 'api', 10);
    expect(timing?.requests).toBe(100);
    expect(timing?.pre).toEqual({ p10: 11, p50: 51, p90: 91, p99: 100 });
    expect(timing?.send.p50).toBe(0.5);
    expect(timing?.upstream.p50).toBeCloseTo(55, 5);
    expect(timing?.total.p50).toBeCloseTo(51 + 0.5 + 55 + 0.1, 5);
    expect(stageTimingOf(dir, 'portkey', 10)).toBeNull();
    expect(stageTimingOf(join(dir, 'missing'), 'api', 10)).toBeNull();
  });

  it('renders a row per target, and says when a target recorded nothing or the phase did not run', () => {
    const p = { p10: 1, p50: 2, p90: 3, p99: 4 };
    const timing = {
      requests: 7,
      pre: p,
      send: p,
      upstream: { ...p, p50: 52.5 },
      post: p,
      total: { ...p, p50: 58.5 },
    };
    const md = stageTimingSection({ delayMs: 50, seconds: 10, api: timing, floor: null });
    expect(md).toContain(
      '| gateway (api) | 7 | 2.00 / 3.00 / 4.00 | 2.00 / 3.00 / 4.00 | 52.50 / 3.00 / 4.00 |',
    );
    expect(md).toContain('| 58.50 / 3.00 | +8.50 |');
    expect(md).toContain('| floor | none recorded |');
    expect(stageTimingSection(undefined)).toContain('Not run (BENCH_STAGE_SECONDS=0)');
  });
});
