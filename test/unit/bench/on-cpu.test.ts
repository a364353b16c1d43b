import { describe, expect, it } from 'vitest';
import {
  categorize,
  GENERATED_CODE,
  javaScriptFunction,
  NO_FUNCTION,
  OTHER_CATEGORY,
  OTHER_FUNCTIONS,
  onCpuSection,
  parseSamples,
  SAMPLE_HZ,
  sourceOf,
  summarizeSamples,
  UNNAMED_FUNCTION,
} from '../../../bench/on-cpu.ts';

/** One sample as `perf script -F comm,pid,tid,ip,sym,dso` prints it with stacks: innermost frame first. */
const sample = (thread: string, frames: readonly (readonly [sym: string, dso: string])[]) =>
  [
    thread,
    ...frames.map(([sym, dso], i) => `\t    7f60aa${i.toString(16).padStart(4, '0')} ${sym} (${dso})`),
    '',
  ].join('\n');
const NODE = '/usr/bin/node';
const JITTED = '/tmp/jit/jitted-100-7.so';
const SCRIPT = [
  sample('MainThread 100/100 ', [
    ['Builtin:StoreIC', JITTED],
    ["JS:*'relay file:///work/main/api/src/use-cases/stream-chat.ts:47:25", JITTED],
    ['JS:~emit node:events:489:44', JITTED],
  ]),
  sample('MainThread 100/100 ', [
    ['tcp_sendmsg_locked+0x9', '[kernel.kallsyms]'],
    ['entry_SYSCALL_64_after_hwframe', '[kernel.kallsyms]'],
    ['JS:*writevGeneric node:internal/stream_base_commons:121:23', JITTED],
  ]),
  sample('MainThread 100/100 ', [['JS:*onStreamRead', '/tmp/perf-100.map']]),
  sample('MainThread 100/100 ', [['[unknown]', '[JIT] tid 100']]),
  sample('MainThread 100/100 ', [
    ['sqlite3VdbeExec', NODE],
    ['node::sqlite::StatementSync::Run', NODE],
    ['Builtin:CallApiCallbackOptimized', JITTED],
    ['JS:^recordBatch file:///work/main/shared/src/store/sqlite/money.sqlite.ts:67:23', JITTED],
    ['JS:+_resume file:///work/main/node_modules/undici/lib/dispatcher/client.js:663:18', JITTED],
  ]),
  sample('V8Worker 100/104', [['v8::internal::ConcurrentMarking::RunMajor(v8::JobDelegate*)', NODE]]),
  sample('libuv-worker 100/105', [['uv__work_done', NODE]]),
  sample('MainThread 200/200', [
    ['Builtins_LoadIC', NODE],
    ['JS:^ file:///work/main/api/src/schemas/json-body.ts:55:71', JITTED],
  ]),
  sample('redis-server 300/300', [['je_malloc', '/usr/bin/redis-server']]),
  'not a sample line',
].join('\n');

describe('on-CPU accounting', () => {
  it('reads perf script samples: process, thread, the code that ran and the JavaScript function running', () => {
    const samples = parseSamples(SCRIPT);
    expect(samples).toHaveLength(9);
    // A jitdump's builtins read as the node binary names them; the innermost JavaScript frame owns the sample.
    expect(samples[0]).toEqual({
      comm: 'MainThread',
      pid: 100,
      tid: 100,
      sym: 'Builtins_StoreIC',
      dso: JITTED,
      owner: 'relay api/src/use-cases/stream-chat.ts:47',
    });
    expect(samples[1]).toMatchObject({
      sym: 'tcp_sendmsg_locked',
      owner: 'writevGeneric node:internal/stream_base_commons:121',
    });
    expect(samples[2]?.owner).toBe('onStreamRead');
    expect(samples[3]?.owner).toBe(UNNAMED_FUNCTION);
    expect(samples[4]?.owner).toBe('recordBatch shared/src/store/sqlite/money.sqlite.ts:67');
    expect(samples[5]).toMatchObject({
      comm: 'V8Worker',
      sym: 'v8::internal::ConcurrentMarking::RunMajor(v8::JobDelegate*)',
    });
    expect(samples[5]?.owner).toBeUndefined();
    expect(samples[6]).toMatchObject({ comm: 'libuv-worker', pid: 100, tid: 105 });
    expect(samples[7]?.owner).toBe('(anonymous) api/src/schemas/json-body.ts:55');
  });

  it('names JavaScript frames short: the project by its path, packages by their own, Node by its module', () => {
    expect(
      javaScriptFunction(
        'JS:+_resume file:///srv/gw/node_modules/undici/lib/dispatcher/client.js:663:18',
        JITTED,
      ),
    ).toBe('_resume npm:undici/lib/dispatcher/client.js:663');
    expect(javaScriptFunction('JS:~emit node:events:489:44', JITTED)).toBe('emit node:events:489');
    expect(javaScriptFunction('JS:*get value file:///srv/gw/shared/src/x.ts:3:5', JITTED)).toBe(
      'get value shared/src/x.ts:3',
    );
    expect(javaScriptFunction("JS:*' :3:17", JITTED)).toBe(GENERATED_CODE);
    expect(sourceOf(GENERATED_CODE)).toBe(GENERATED_CODE);
    expect(javaScriptFunction('Builtin:StoreIC', JITTED)).toBeUndefined();
    expect(javaScriptFunction('sqlite3VdbeExec', NODE)).toBeUndefined();
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

  it("gives a function's source: its project file, its npm package, or Node", () => {
    expect(sourceOf('relay api/src/use-cases/stream-chat.ts:47')).toBe('api/src/use-cases/stream-chat.ts');
    expect(sourceOf('_resume npm:undici/lib/dispatcher/client.js:663')).toBe('npm:undici');
    expect(sourceOf('(anonymous) npm:@fastify/cors/index.js:219')).toBe('npm:@fastify/cors');
    expect(sourceOf('emit node:events:489')).toBe("Node's own JavaScript (node:*)");
    expect(sourceOf(UNNAMED_FUNCTION)).toBe(UNNAMED_FUNCTION);
  });

  it('charges the target main thread to the JavaScript function running, and writes them beside the floor', () => {
    const api = summarize({ name: 'api', pid: 100 }, [{ name: 'mock', pid: 200 }]);
    expect(api.mainByFunction).toEqual({
      'relay api/src/use-cases/stream-chat.ts:47': one,
      'writevGeneric node:internal/stream_base_commons:121': one,
      onStreamRead: one,
      [UNNAMED_FUNCTION]: one,
      'recordBatch shared/src/store/sqlite/money.sqlite.ts:67': one,
    });
    const floor = summarize({ name: 'floor', pid: 200 });
    expect(floor.mainByFunction).toEqual({ '(anonymous) api/src/schemas/json-body.ts:55': one });
    const md = onCpuSection({ recordings: [api, floor] }, '1', 2, 5);
    expect(md).toContain('-g -k 1');
    expect(md).toContain(
      '| main thread by the JavaScript function running, µs per request | api | floor | api − floor |',
    );
    expect(md).toMatch(/\| `relay api\/src\/use-cases\/stream-chat\.ts:47` \| 5\.0 \| 0\.0 \| \+5\.0 \|/);
    expect(md).toMatch(/\| `\(anonymous\) api\/src\/schemas\/json-body\.ts:55` \| 0\.0 \| 5\.0 \| -5\.0 \|/);
    expect(md).toContain(`| ${NO_FUNCTION} | 0.0 | 0.0 | +0.0 |`);
    // By source: a project file, Node's own, an npm package; the floor's one file beside them.
    expect(api.mainBySource).toMatchObject({
      'api/src/use-cases/stream-chat.ts': one,
      "Node's own JavaScript (node:*)": one,
      'shared/src/store/sqlite/money.sqlite.ts': one,
    });
    expect(md).toContain(
      '| main thread by the source of the JavaScript running, µs per request | api | floor | api − floor |',
    );
    expect(md).toMatch(/\| `api\/src\/schemas\/json-body\.ts` \| 0\.0 \| 5\.0 \| -5\.0 \|/);
    // A run recorded before functions were kept has no such table.
    const { mainByFunction: _, ...older } = api;
    expect(onCpuSection({ recordings: [older] }, '1', 2, 5)).not.toContain('JavaScript function running');
  });

  it('keeps the 25 busiest functions by name and shows the 20 busiest of either, the rest summed', () => {
    // Function f<n> runs n + 1 samples of the main thread: 30 functions, the busiest f29.
    const samples = Array.from({ length: 30 }, (_, n) =>
      Array.from({ length: n + 1 }, () => ({
        comm: 'MainThread',
        pid: 100,
        tid: 100,
        sym: 'Builtins_LoadIC',
        dso: NODE,
        owner: `f${n} api/src/f.ts:${n}`,
      })),
    ).flat();
    const summary = summarizeSamples(samples, {
      target: { name: 'api', pid: 100 },
      others: [],
      case: 'cut',
      rps: 100,
      seconds: 2,
    });
    const kept = Object.keys(summary.mainByFunction ?? {});

    expect(kept).toHaveLength(26);
    expect(kept).toContain('f5 api/src/f.ts:5');
    expect(kept).not.toContain('f4 api/src/f.ts:4');
    // f0 … f4: 1 + 2 + 3 + 4 + 5 samples.
    expect(summary.mainByFunction?.[OTHER_FUNCTIONS]).toBeCloseTo(15 * one);
    const md = onCpuSection({ recordings: [summary] }, '1', 2, 5);
    expect(md).toContain('| `f10 api/src/f.ts:10` |');
    expect(md).not.toContain('| `f9 api/src/f.ts:9` |');
    // The hidden f5 … f9 (6 + … + 10 = 40 samples) with the summary's other functions (15).
    expect(md).toContain(`| (the rest) | ${(55 * one).toFixed(1)} | – | – |`);
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
