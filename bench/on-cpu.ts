/**
 * On-CPU time per request, from Linux `perf`: every process and thread that ran on the server CPU
 * while one target was under load, sampled by the kernel's CPU clock (`perf record -C`), so a
 * sample is time spent running, never time spent waiting. V8's own profile (`--cpu-prof`) samples
 * the api's thread on the wall clock: the mock, which shares the server CPU, runs inside the api's
 * socket writes there (a write to the mock wakes it, and it takes the CPU before the write
 * returns), so `writev` looks like the api's busiest function. Here the mock's time is the mock's,
 * the api's garbage-collection helper threads are counted apart from its main thread, and the main
 * thread's time is split by what the CPU was running (the kernel, compiled JavaScript, V8's
 * builtins by kind, SQLite, the HTTP parser…), per request, beside the floor proxy's.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Samples per second and CPU (`perf record -F`). */
export const SAMPLE_HZ = 999;

/** A process to account for apart, by name (the target under load, the mock). */
export interface OnCpuRole {
  readonly name: string;
  readonly pid: number;
}

/**
 * One sample: the process and thread that ran, the code it ran (`perf script` fields) and the
 * innermost JavaScript function on its stack (`undefined`: none), which the sample is charged to
 * by function: a builtin, V8's runtime, SQLite or a system call counts for the JavaScript that
 * called it.
 */
export interface CpuSample {
  readonly comm: string;
  readonly pid: number;
  readonly tid: number;
  readonly sym: string;
  readonly dso: string;
  readonly owner?: string;
}

/** Microseconds of CPU per request, for one target (`role`, its process's name) in one load case. */
export interface OnCpuSummary {
  readonly role: string;
  readonly case: string;
  /** The target's requests per second over the recording (from the load generator). */
  readonly rps: number;
  readonly seconds: number;
  readonly samples: number;
  /** By process and thread: `<role> main thread`, `<role> V8 helper threads`, `<role> other threads`, `other processes`. */
  readonly byThread: Readonly<Record<string, number>>;
  /** The target's main thread by what ran (see `categorize`). */
  readonly mainByCategory: Readonly<Record<string, number>>;
  /**
   * The target's main thread by the JavaScript function running (`CpuSample.owner`): its busiest
   * `TOP_FUNCTIONS`, then `OTHER_FUNCTIONS` and `NO_FUNCTION`. Absent in runs before it was kept.
   */
  readonly mainByFunction?: Readonly<Record<string, number>>;
  /** The same by the source of that function: a project file, an npm package, Node's internals. */
  readonly mainBySource?: Readonly<Record<string, number>>;
}

/** Functions kept by name per summary; the rest are summed as `OTHER_FUNCTIONS`. */
const TOP_FUNCTIONS = 25;
export const OTHER_FUNCTIONS = '(other functions)';
export const NO_FUNCTION = '(no JavaScript on the stack: the event loop, GC, Node itself)';
export const UNNAMED_FUNCTION = '(JavaScript without a name: no jitdump)';
/** Functions compiled from source built at run time (validators, serializers: `new Function`). */
export const GENERATED_CODE = '(code generated at run time: validators, serializers)';

/** Why `perf` cannot record on `cpus` here (not installed, not permitted…), or undefined when it can. */
export function perfUnusable(cpus: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'bench-perf-'));
  try {
    execFileSync(
      'perf',
      ['record', '-C', cpus, '-F', '99', '--no-buildid-cache', '-o', join(dir, 'probe.data'), '--', 'true'],
      {
        stdio: 'pipe',
      },
    );
    return undefined;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim().split('\n').at(-1);
    return (err as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'perf is not installed'
      : (stderr ?? String(err));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Node's flags that make V8 write a jitdump into `dir` (every function it compiles, by name and
 * code), so that `readSamples` can name the JavaScript that ran; V8's log goes there too.
 */
export function jitDumpFlags(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return ['--perf-prof', `--perf-prof-path=${dir}`, `--logfile=${join(dir, 'v8.log')}`];
}

/**
 * Records every thread that runs on `cpus` for `seconds` into `file`, with call stacks (`-g`) and
 * on the monotonic clock (`-k 1`, the clock of V8's jitdump).
 */
export async function recordCpus(cpus: string, seconds: number, file: string): Promise<void> {
  const perf = spawn(
    'perf',
    [
      'record',
      '-C',
      cpus,
      '-F',
      String(SAMPLE_HZ),
      '-k',
      '1',
      '-g',
      // The build-ids of what ran stay out of ~/.debug (perf's cache, shared by every run).
      '--no-buildid-cache',
      '-o',
      file,
      '--',
      'sleep',
      String(seconds),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  perf.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(perf, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`perf record exited with ${code}: ${stderr.trim().slice(-300)}`);
}

/**
 * The samples of a recording (`perf script`, with their stacks). When `jitDir` holds V8 jitdumps
 * (`jitDumpFlags`), `perf inject --jit` first gives the compiled JavaScript its names (the code
 * files it writes stay in `jitDir`, for the caller to remove; the injected copy is removed here).
 */
export function readSamples(file: string, jitDir?: string): CpuSample[] {
  const jit =
    jitDir !== undefined && existsSync(jitDir) && readdirSync(jitDir).some((f) => f.startsWith('jit-'));
  // perf files the code it injects in a build-id cache: the jitdump folder's own, not ~/.debug.
  const cache = jitDir === undefined ? [] : ['--buildid-dir', join(jitDir, 'buildid')];
  const perf = (args: string[]) =>
    execFileSync('perf', [...cache, ...args], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  const input = jit ? `${file}.jit` : file;
  if (jit) perf(['inject', '--jit', '-i', file, '-o', input]);
  try {
    return parseSamples(perf(['script', '-i', input, '-F', 'comm,pid,tid,ip,sym,dso']).toString());
  } finally {
    if (input !== file) rmSync(input, { force: true });
  }
}

// `perf script` with stacks: a sample is `<comm> <pid>/<tid>`, then one line per frame, innermost
// first, `<ip> <sym>+<offset> (<dso>)`, then a blank line; the command and symbols may hold spaces.
const HEADER = /^(\S.*?)\s+(\d+)\/(\d+)\s*$/;
const FRAME = /^\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$/;

export function parseSamples(text: string): CpuSample[] {
  const samples: CpuSample[] = [];
  let header: RegExpExecArray | null = null;
  let leaf: { sym: string; dso: string } | undefined;
  let owner: string | undefined;
  const flush = () => {
    if (header !== null && leaf !== undefined) {
      const [, comm = '', pid = '', tid = ''] = header;
      samples.push({
        comm,
        pid: Number(pid),
        tid: Number(tid),
        ...leaf,
        ...(owner === undefined ? {} : { owner }),
      });
    }
    header = null;
    leaf = undefined;
    owner = undefined;
  };
  for (const line of text.split('\n')) {
    const frame = header === null ? null : FRAME.exec(line);
    if (frame !== null) {
      const sym = frame[1] ?? '';
      const dso = frame[2] ?? '';
      leaf ??= { sym: builtinName(sym.replace(/\+0x[0-9a-f]+$/, '')), dso };
      owner ??= javaScriptFunction(sym, dso);
      continue;
    }
    flush();
    header = HEADER.exec(line);
  }
  flush();
  return samples;
}

/** V8's builtins as the node binary names them (a jitdump names them `Builtin:<name>`). */
function builtinName(sym: string): string {
  return sym.startsWith('Builtin:') ? `Builtins_${sym.slice('Builtin:'.length)}` : sym;
}

/**
 * The JavaScript function a frame ran, shortened (`relay api/src/use-cases/stream-chat.ts:47`,
 * `emit node:events:489`, `npm:undici/lib/dispatcher/client.js:663`), or undefined for other code.
 */
export function javaScriptFunction(sym: string, dso: string): string | undefined {
  if (/^\[JIT\]|^\[unknown\]/.test(dso) || (sym === '[unknown]' && /perf-\d+\.map/.test(dso)))
    return UNNAMED_FUNCTION;
  if (!sym.startsWith('JS:')) return undefined;
  const m = /^JS:[*+~^]?'?(.*?)\s*(\S+?:\d+)(?::\d+)?$/.exec(sym);
  if (m === null) return sym.replace(/^JS:[*+~^]?'?/, '');
  const [, name = '', where = ''] = m;
  if (!/\/|^node:/.test(where)) return GENERATED_CODE;
  const place = where
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, 'npm:')
    .replace(/^\/.*?\/(api|shared|bench|workers|infra|scripts)\//, '$1/');
  return `${name === '' ? '(anonymous)' : name} ${place}`;
}

/** What the CPU ran, first match wins: the kernel, compiled JavaScript, then V8 and the libraries by kind. */
const CATEGORIES: readonly (readonly [name: string, test: (sym: string, dso: string) => boolean])[] = [
  ['kernel (system calls, loopback TCP, scheduling)', (_s, d) => d.includes('kernel')],
  [
    'JavaScript, compiled (JIT code)',
    (s, d) => s.startsWith('JS:') || /^\[JIT\]|perf-\d+\.map|^\[unknown\]|^anon/.test(d),
  ],
  [
    'garbage collection (on the main thread)',
    (s) => /Scaveng|Marking|MarkCompact|Sweep|Evacuat|RecordWrite|MinorMS|SemiSpace|Heap::|GCTracer/.test(s),
  ],
  [
    'compilers (TurboFan, Maglev, parser)',
    (s) => /compiler::|maglev::|Compiler|Compile[A-Z(]|(?<!Json)Parser(<|::)|BytecodeGenerator/.test(s),
  ],
  ['SQLite', (s) => /sqlite3|^wal[A-Z]|Vdbe|^btree|Btree|[pP]ager|balance_nonroot|^vdbe/.test(s)],
  ['HTTP parsing (llhttp)', (s) => /llhttp|http_parser/.test(s)],
  ['interpreter (Ignition handlers)', (s) => /Handler$|Interpreter|^BytecodeHandler:/.test(s)],
  [
    'property access (inline-cache misses, megamorphic lookups)',
    (s) => /IC(_|$|Trampoline)|GetProperty|SetProperty|LookupIterator|Builtins_KeyedHas|HasProperty/.test(s),
  ],
  ['promises and async functions', (s) => /Promise|Microtask|Generator|Async|Await/.test(s)],
  [
    'calls, closures and object creation',
    (s) =>
      /Builtins_(Call|Construct|FastNew|Create|Clone|CopyDataProperties|JSEntry|Baseline)|Factory::|AllocateRaw|BackingStore/.test(
        s,
      ),
  ],
  ['strings, JSON and regular expressions', (s) => /String|Utf8|Latin1|CopyChars|Json|RegExp|Dtoa/.test(s)],
  ['Map, Set and hashing', (s) => /OrderedHash|HashTable|Builtins_(Map|Set|WeakMap)/.test(s)],
  ['Node runtime, libuv and bindings', (s) => /^uv_|^uv__|node::|napi_|ada::/.test(s)],
  ['C libraries (malloc, memcpy, clock)', (_s, d) => /libc|libstdc\+\+|libm\.|ld-linux|vdso/.test(d)],
];
export const OTHER_CATEGORY = 'other V8 runtime and builtins';

export function categorize(sym: string, dso: string): string {
  for (const [name, test] of CATEGORIES) if (test(sym, dso)) return name;
  return OTHER_CATEGORY;
}

/**
 * Microseconds per request of each process and thread in `samples`, and of the target's main
 * thread by category: `seconds` of recording at `SAMPLE_HZ` while the target answered `rps`.
 */
export function summarizeSamples(
  samples: readonly CpuSample[],
  options: {
    readonly target: OnCpuRole;
    readonly others: readonly OnCpuRole[];
    readonly case: string;
    readonly rps: number;
    readonly seconds: number;
  },
): OnCpuSummary {
  const requests = options.rps * options.seconds;
  const usPerSample = 1e6 / SAMPLE_HZ;
  const perRequest = (count: number) => (count * usPerSample) / requests;
  const roles = new Map([options.target, ...options.others].map((role) => [role.pid, role.name]));
  const byThread = new Map<string, number>();
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const bySource = new Map<string, number>();
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const sample of samples) {
    const role = roles.get(sample.pid);
    if (role === undefined) {
      add(byThread, 'other processes');
      continue;
    }
    if (sample.tid === sample.pid) {
      add(byThread, `${role} main thread`);
      if (sample.pid === options.target.pid) {
        add(byCategory, categorize(sample.sym, sample.dso));
        add(byFunction, sample.owner ?? NO_FUNCTION);
        add(bySource, sample.owner === undefined ? NO_FUNCTION : sourceOf(sample.owner));
      }
    } else add(byThread, `${role} ${sample.comm === 'V8Worker' ? 'V8 helper threads' : 'other threads'}`);
  }
  const scaled = (map: Map<string, number>) =>
    Object.fromEntries([...map].sort((a, b) => b[1] - a[1]).map(([key, count]) => [key, perRequest(count)]));
  return {
    role: options.target.name,
    case: options.case,
    rps: options.rps,
    seconds: options.seconds,
    samples: samples.length,
    byThread: scaled(byThread),
    mainByCategory: scaled(byCategory),
    mainByFunction: scaled(topFunctions(byFunction)),
    mainBySource: scaled(bySource),
  };
}

/**
 * Where a function (`javaScriptFunction`'s name) comes from: its project file, its npm package,
 * or Node's internals; unnamed JavaScript stays as it is.
 */
export function sourceOf(name: string): string {
  if (name === GENERATED_CODE || name === UNNAMED_FUNCTION) return name;
  const place = name.slice(name.lastIndexOf(' ') + 1);
  if (place.startsWith('npm:')) return /^npm:(@[^/]+\/)?[^/]+/.exec(place)?.[0] ?? place;
  if (place.startsWith('node:')) return "Node's own JavaScript (node:*)";
  const file = /^(.*):\d+$/.exec(place)?.[1];
  return file ?? name;
}

/** The `TOP_FUNCTIONS` busiest functions by name, the rest summed, and the samples without any. */
function topFunctions(counts: ReadonlyMap<string, number>): Map<string, number> {
  const named = [...counts].filter(([name]) => name !== NO_FUNCTION).sort((a, b) => b[1] - a[1]);
  const kept = new Map(named.slice(0, TOP_FUNCTIONS));
  const rest = named.slice(TOP_FUNCTIONS).reduce((total, [, count]) => total + count, 0);
  if (rest > 0) kept.set(OTHER_FUNCTIONS, rest);
  const none = counts.get(NO_FUNCTION);
  if (none !== undefined) kept.set(NO_FUNCTION, none);
  return kept;
}

/** The phase's outcome in a run's info: one summary per target and case, or why it did not run. */
export type OnCpuRun = { readonly recordings: readonly OnCpuSummary[] } | { readonly skipped: string };

const us = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(1));
/** A difference to a tenth, signed; one that rounds to zero reads +0.0, never -0.0. */
const signedUs = (x: number) => {
  const rounded = Number(x.toFixed(1));
  return `${rounded >= 0 ? '+' : ''}${rounded.toFixed(1)}`;
};
const sum = (record: Readonly<Record<string, number>>) => Object.values(record).reduce((a, b) => a + b, 0);

/** One table per case: the api beside the floor, µs per request, main thread by category first. */
export function onCpuSection(
  run: OnCpuRun | undefined,
  serverCpus: string,
  seconds: number,
  warmupS: number,
): string {
  let md = '\n## On-CPU time per request (Linux perf)\n\n';
  if (run === undefined) return `${md}Not run (BENCH_ONCPU_SECONDS=0).\n`;
  if ('skipped' in run) return `${md}Not run: ${run.skipped} (Debian: \`apt-get install -y linux-perf\`).\n`;
  const named = run.recordings.some((r) => r.mainByFunction !== undefined);
  md += `\`perf record -C ${serverCpus} -F ${SAMPLE_HZ}${named ? ' -g -k 1' : ''}\` (\`bench/on-cpu.ts\`): every thread that ran on the server CPU, sampled on the kernel's CPU clock (a sample is time spent running, never waiting), for ${seconds} s inside a load of its own (wrk, the load tables' keys rotated), unstreamed requests at each upstream delay, then streams ten at a time (20 chunks at once, as in the stream probe); first with the api under load (a fresh one, fresh stores for each case), then with the floor proxy (the load tables' **floor**${named ? ', a fresh one for each case' : ''}), after ${warmupS} s of the same load on each (the fresh api first served the 0 ms load alone, \`BENCH_API_WARMUP\`: a fresh api compiles its hot path on V8's helper threads for thousands of requests); divided by the requests answered meanwhile. Unlike the profile above, the mock's time is the mock's (in V8's wall-clock profile it shows up inside the api's socket writes, since a write wakes the mock, which shares the CPU) and the V8 helper threads (concurrent marking, compilation) are apart from the main thread. The main thread's time is split by the code that ran: the kernel (system calls: loopback TCP, the mock woken, \`epoll\`; page faults), compiled JavaScript (JIT code, the project's and the npm packages' alike), then V8's builtins and runtime by kind, SQLite, the HTTP parser, Node's runtime and the C libraries.${named ? ` Two more tables charge the main thread's time to the JavaScript running, by its source (a project file, an npm package, Node's own) and by function: the api and the floor proxy of each case run with V8's jitdump (\`node --perf-prof\`, which names every compiled function), the recording keeps each sample's stack (\`-g\`, on the monotonic clock: \`-k 1\`), \`perf inject --jit\` names the JavaScript frames, and each sample counts for the innermost JavaScript function on its stack, so the builtins, V8's runtime, SQLite and the system calls a function called count for it (what it costs to record the stacks is in every figure here).` : ''}\n\n`;
  const row = (label: string, of: (s: OnCpuSummary) => number, api?: OnCpuSummary, floor?: OnCpuSummary) => {
    const [a, f] = [api && of(api), floor && of(floor)];
    return `| ${label} | ${us(a)} | ${us(f)} | ${a === undefined || f === undefined ? '–' : signedUs(a - f)} |\n`;
  };
  const thread = (kind: string) => (s: OnCpuSummary) => s.byThread[`${s.role} ${kind}`] ?? 0;
  const allThreadsOf = (role: string) => (s: OnCpuSummary) =>
    Object.entries(s.byThread).reduce(
      (total, [key, us]) => (key.startsWith(`${role} `) ? total + us : total),
      0,
    );
  for (const name of [...new Set(run.recordings.map((r) => r.case))]) {
    const api = run.recordings.find((r) => r.case === name && r.role === 'api');
    const floor = run.recordings.find((r) => r.case === name && r.role === 'floor');
    md += `**${name}**: api ${api ? `${api.rps.toFixed(0)} req/s` : 'n/a'}, floor ${floor ? `${floor.rps.toFixed(0)} req/s` : 'n/a'}.\n\n`;
    md += '| on the server CPU, µs per request | api | floor | api − floor |\n|---|---|---|---|\n';
    md += row('**main thread**', thread('main thread'), api, floor);
    const categories = new Set([
      ...Object.keys(api?.mainByCategory ?? {}),
      ...Object.keys(floor?.mainByCategory ?? {}),
    ]);
    for (const category of categories)
      md += row(`· ${category}`, (s) => s.mainByCategory[category] ?? 0, api, floor);
    md += row(
      'V8 helper threads (concurrent GC marking, compilation)',
      thread('V8 helper threads'),
      api,
      floor,
    );
    md += row('other threads of the target', thread('other threads'), api, floor);
    md += row('the mock (upstream), all its threads', allThreadsOf('mock'), api, floor);
    md += row('other processes on the CPU', (s) => s.byThread['other processes'] ?? 0, api, floor);
    md += row('**all on the server CPU**', (s) => sum(s.byThread), api, floor);
    md += '\n';
    md += breakdownTable('the source of the JavaScript running', (s) => s.mainBySource, api, floor, row);
    md += breakdownTable('the JavaScript function running', (s) => s.mainByFunction, api, floor, row);
  }
  return md;
}

/** Rows of a breakdown table named per case, the busiest of the api's and the floor's first. */
const SHOWN_ROWS = 20;

/**
 * The api beside the floor in one breakdown of the main thread (`of`: by source or by function):
 * the busiest names of either, then the rest (with the names a summary did not keep) and the time
 * with no JavaScript on the stack. Empty for runs before the breakdown was kept.
 */
function breakdownTable(
  heading: string,
  of: (s: OnCpuSummary) => Readonly<Record<string, number>> | undefined,
  api: OnCpuSummary | undefined,
  floor: OnCpuSummary | undefined,
  row: (label: string, of: (s: OnCpuSummary) => number, api?: OnCpuSummary, floor?: OnCpuSummary) => string,
): string {
  if ((api && of(api)) === undefined && (floor && of(floor)) === undefined) return '';
  const value = (name: string) => (s: OnCpuSummary) => of(s)?.[name] ?? 0;
  const largest = (name: string) => Math.max(api ? value(name)(api) : 0, floor ? value(name)(floor) : 0);
  const names = [
    ...new Set([...Object.keys((api && of(api)) ?? {}), ...Object.keys((floor && of(floor)) ?? {})]),
  ]
    .filter((name) => name !== OTHER_FUNCTIONS && name !== NO_FUNCTION)
    .sort((a, b) => largest(b) - largest(a));
  const hidden = names.slice(SHOWN_ROWS);
  let md = `| main thread by ${heading}, µs per request | api | floor | api − floor |\n|---|---|---|---|\n`;
  for (const name of names.slice(0, SHOWN_ROWS)) md += row(`\`${name}\``, value(name), api, floor);
  md += row(
    '(the rest)',
    (s) => hidden.reduce((total, name) => total + value(name)(s), value(OTHER_FUNCTIONS)(s)),
    api,
    floor,
  );
  md += row(NO_FUNCTION, value(NO_FUNCTION), api, floor);
  return `${md}\n`;
}
