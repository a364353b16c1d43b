/**
 * The bench's lines: each judged against the floor of the same run, with its limit; a missing
 * figure (a phase skipped or failed) is n/a, never met; a miss names the section that explains it.
 */
import { describe, expect, it } from 'vitest';
import { benchLines, type LineFigures, linesTable } from '../../../bench/lines.ts';

const run: LineFigures = {
  rps: { gateway: 6000, portkey: 1900, floor: 10_000 },
  channels: { measured: 5800, reference: 6000, roundRatios: [] },
  logOff: { measured: 6000, reference: 6100, roundRatios: [] },
  cpuMs: { gateway: 0.149, floor: 0.075 },
  added50: { gateway: 3.02, floor: 1.34 },
  addedTtft: { gateway: 2.69, floor: 1.35 },
  idleMb: { gateway: 202, floor: 123 },
  growthMb: { gateway: 88, floor: 75 },
};

const verdicts = (figures: LineFigures) => benchLines(figures).map((line) => line.met);

describe('benchLines', () => {
  it('judges each line against the floor of the run, at its limit', () => {
    // 6000 ≥ 3 × 1900; 5800 ≥ 95 % of 6000; 0.149 ≤ 0.150; 3.02 > 1.34 + 1.5; 2.69 ≤ 2.85;
    // +88 ≤ 1.3 × 75; 202 ≤ 223.
    expect(verdicts(run)).toEqual([true, true, true, true, false, true, true, true]);
    expect(
      verdicts({
        ...run,
        rps: { ...run.rps, gateway: 5699 },
        channels: { measured: 5400, reference: 5699, roundRatios: [] },
        logOff: { measured: 5699, reference: 6100, roundRatios: [] },
        cpuMs: { gateway: 0.151, floor: 0.075 },
        added50: { gateway: 2.84, floor: 1.34 },
        idleMb: { gateway: 224, floor: 123 },
        growthMb: { gateway: 99, floor: 75 },
      }),
    ).toEqual([false, false, false, false, true, true, false, false]);
  });

  it('says what it compared, the floor beside the gateway', () => {
    const [throughput, channels, log, cpu, latency, , growth, idle] = benchLines(run);
    expect(log).toMatchObject({ gateway: '6000 req/s = 98.4 % of 6100' });
    expect(throughput).toMatchObject({ gateway: '6000 req/s = 3.16 × Portkey (1900)', floor: '5.26 ×' });
    expect(channels).toMatchObject({ gateway: '5800 req/s = 96.7 % of 6000', floor: '–' });
    expect(cpu).toMatchObject({ gateway: '0.149 ms', floor: '0.075 ms' });
    expect(latency).toMatchObject({ gateway: '+3.02 ms', floor: '+1.34 ms' });
    expect(growth).toMatchObject({ gateway: '+88.00 MB', floor: '+75.00 MB' });
    expect(idle).toMatchObject({ gateway: '202 MB', floor: '123 MB' });
  });

  it('has a line without its figures as n/a, neither met nor missed', () => {
    const { channels: _channels, logOff: _logOff, ...measured } = run;
    const lines = benchLines({ ...measured, rps: {}, idleMb: { gateway: 202 }, growthMb: {} });
    expect(lines.map((line) => line.met)).toEqual([
      undefined,
      undefined,
      undefined,
      true,
      false,
      true,
      undefined,
      undefined,
    ]);
    expect(lines[0]).toMatchObject({ gateway: 'n/a', floor: 'n/a' });
  });
});

describe('a line of two gateways in the same run', () => {
  it('is judged on the median of its rounds’ ratios, not on the ratio of the medians', () => {
    // The medians (1823 against 2300: 79.3 %) say missed; round by round the log costs nothing.
    const logOff = { measured: 1823, reference: 2300, roundRatios: [1.133, 0.788, 1.022, 0.995, 0.77] };
    const [, , log] = benchLines({ ...run, logOff });
    expect(log?.met).toBe(true);
    expect(log?.gateway).toBe(
      '99.5 %, the median of its rounds (113.3 %, 78.8 %, 102.2 %, 99.5 %, 77.0 %); medians 1823 req/s = 79.3 % of 2300',
    );
    const [, , missed] = benchLines({ ...run, logOff: { ...logOff, roundRatios: [0.9, 0.94, 0.96, 0.93] } });
    expect(missed?.met).toBe(false);
    expect(missed?.gateway).toMatch(/^94\.0 %, the median/);
  });
});

describe('linesTable', () => {
  it('names, for a missed line, the section whose profile explains it', () => {
    const table = linesTable(benchLines(run));
    expect(table.split('\n')).toHaveLength(10);
    expect(table).toContain(
      '| 50 ms upstream: added p50 ≤ the floor’s + 1.5 ms | +3.02 ms | +1.34 ms | **missed** (see "CPU profile of the api") |',
    );
    expect(table).toContain('| idle: api RSS ≤ the floor’s + 100 MB | 202 MB | 123 MB | **met** |');
  });
});
