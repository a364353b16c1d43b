import { setFlagsFromString } from 'node:v8';

/**
 * V8's allocation-site pretenuring is off in the api (imported first by `main.ts`, so it holds
 * before the rest of the process is loaded). With it on, a burst of long-lived requests (1,000
 * streams open at once) makes V8 allocate the objects of every later request directly in the old
 * generation, where, dead, they keep the young objects they point to alive through every scavenge
 * until the next full collection. Measured on the api after such a burst (bench/RESULTS.md,
 * "Garbage collection"): garbage-collection time per request 0.027–0.030 ms with it, 0.005–0.012
 * ms without, resident memory after a minute of load 526–537 MB against 367–410 MB, CPU per
 * request no higher.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
