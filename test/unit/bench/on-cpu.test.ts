import { describe, expect, it } from 'vitest';
import {
  categorize,
  OTHER_CATEGORY,
  onCpuSection,
  parseSamples,
  SAMPLE_HZ,
  summarizeSamples,
} from '../../../bench/on-cpu.ts';

// `perf script -G -F comm,pid,tid,ip,sym,dso` lines, as perf prints them (symbols with spaces too).
const SCRIPT = [
  '      MainThread   100/100      7fb633e26835 Builtins_StoreIC+0x15 (/usr/bin/node)',
  '      MainThread   100/100  ffffffff8160f3c9 tcp_sendmsg_locked+0x9 ([kernel.kallsyms])',
  '      MainThread   100/100      7f6082baa700 JS:*onStreamRead (/tmp/perf-100.map)',
  '      MainThread   100/100      7f60aaaa0000 [unknown] ([JIT] tid 100)',
  '      MainThread   100/100          a22df1 sqlite3VdbeExec (/usr/bin/node)',
  '        V8Worker   100/104      7fb652e2ecde v8::internal::ConcurrentMarking::RunMajor(v8::JobDelegate*) (/usr/bin/node)',
  ' libuv-worker     100/105      7fb652e2ecde uv__work_done (/usr/bin/node)',
  '      MainThread   200/200      7fb633e26835 Builtins_LoadIC (/usr/bin/node)',
  '    redis-server   300/300      7fb633e26835 je_malloc (/usr/bin/redis-server)',
  'not a sample line',
].join('\n');

describe('on-CPU accounting', () => {
  it('reads perf script lines: process, thread and the code that ran, offsets dropped', () => {
    const samples = parseSamples(SCRIPT);
    expect(samples).toHaveLength(9);
    expect(samples[0]).toEqual({
      comm: 'MainThread',
      pid: 100,
      tid: 100,
      sym: 'Builtins_StoreIC',
      dso: '/usr/bin/node',
    });
    expect(samples[5]?.sym).toBe('v8::internal::ConcurrentMarking::RunMajor(v8::JobDelegate*)');
    expect(samples[6]).toMatchObject({ comm: 'libuv-worker', pid: 100, tid: 105 });
  });

  it('sorts the code that ran into kinds: the kernel and JIT code by where it lives, the rest by name', () => {
    expect(categorize('tcp_sendmsg_locked', '[kernel.kallsyms]')).toMatch(/^kernel/);
    expect(categorize('JS:*onStreamRead', '/tmp/perf-100.map')).toMatch(/^JavaScript/);
    expect(categorize('[unknown]', '[JIT] tid 100')).toMatch(/^JavaScript/);
    expect(categorize('Builtins_StoreIC', '/usr/bin/node')).toMatch(/^property access/);
    expect(categorize('Builtins_KeyedStoreIC_Megamorphic', '/usr/bin/node')).toMatch(/^property access/);
    expect(categorize('sqlite3VdbeExec', '/usr/bin/node')).toBe('SQLite');
    expect(categorize('v8::internal::Scavenger::ScavengeObject<x>', '/usr/bin/node')).toMatch(/^garbage/);
    expect(categorize('Builtins_PromiseFulfillReactionJob', '/usr/bin/node')).toMatch(/^promises/);
    expect(categorize('v8::internal::JsonParser<unsigned char>::ScanJsonString', '/usr/bin/node')).toMatch(
      /^strings/,
    );
    expect(categorize('llhttp_execute', '/usr/bin/node')).toMatch(/^HTTP parsing/);
    expect(categorize('__memmove_avx_unaligned_erms', '/usr/lib/x86_64-linux-gnu/libc.so.6')).toMatch(
      /^C libraries/,
    );
    expect(categorize('Builtins_Negate_WithFeedback', '/usr/bin/node')).toBe(OTHER_CATEGORY);
  });

  /** The samples above, over 2 s at 100 req/s: a sample is 1e6 / SAMPLE_HZ µs spread over 200 requests. */
  const summarize = (target: { name: string; pid: number }, others: { name: string; pid: number }[] = []) =>
    summarizeSamples(parseSamples(SCRIPT), { target, others, case: '50 ms upstream', rps: 100, seconds: 2 });
  const one = 1e6 / SAMPLE_HZ / 200;

  it('counts µs per request by thread, and the target main thread by kind', () => {
    // 5 samples of the target's main thread, 1 of its V8 helper, 1 other thread, 1 of the mock, 1 elsewhere.
    const summary = summarize({ name: 'api', pid: 100 }, [{ name: 'mock', pid: 200 }]);
    expect(summary).toMatchObject({ role: 'api', case: '50 ms upstream', samples: 9 });
    expect(summary.byThread['api main thread']).toBeCloseTo(5 * one);
    expect(summary.byThread['api V8 helper threads']).toBeCloseTo(one);
    expect(summary.byThread['api other threads']).toBeCloseTo(one);
    expect(summary.byThread['mock main thread']).toBeCloseTo(one);
    expect(summary.byThread['other processes']).toBeCloseTo(one);
    expect(summary.mainByCategory.SQLite).toBeCloseTo(one);
    expect(summary.mainByCategory['JavaScript, compiled (JIT code)']).toBeCloseTo(2 * one);
    // The mock's own code is not the target's.
    expect(Object.values(summary.mainByCategory).reduce((a, b) => a + b, 0)).toBeCloseTo(5 * one);
  });

  it('writes the api beside the floor per case, and says why when perf could not run', () => {
    const api = summarize({ name: 'api', pid: 100 }, [{ name: 'mock', pid: 200 }]);
    const floor = summarize({ name: 'floor', pid: 200 });
    const md = onCpuSection({ recordings: [api, floor] }, '1', 2, 5);
    expect(md).toContain('**50 ms upstream**: api 100 req/s, floor 100 req/s');
    expect(md).toMatch(/\| \*\*main thread\*\* \| 25\.0 \| 5\.0 \| \+20\.0 \|/);
    // The api's recording counts the mock's one sample; the floor's names no mock.
    expect(md).toMatch(/\| the mock \(upstream\), all its threads \| 5\.0 \| 0\.0 \| \+5\.0 \|/);
    expect(md).toMatch(/\| \*\*all on the server CPU\*\* \| 45\.0 \| 45\.0 \| \+0\.0 \|/);
    expect(onCpuSection({ skipped: 'perf is not installed' }, '1', 10, 10)).toContain(
      'Not run: perf is not installed',
    );
    expect(onCpuSection(undefined, '1', 10, 10)).toContain('BENCH_ONCPU_SECONDS=0');
  });
});
