/**
 * The pool phases of `node bench/media-bench.ts`: one running stack whose image pool grows step by
 * step (`WORKER_QUEUES=image` processes added while it runs, as KEDA adds pods to the image
 * Deployment), under a closed loop of synchronous image requests, 2 x the pool's concurrency at each
 * step. Each step measures image jobs/s, their latency, the waiting counts KEDA's triggers read
 * (`LLEN <prefix>:<queue>:wait`) and each process's CPU.
 *
 * With `video`, a video pool of one `WORKER_QUEUES=video` process runs beside it, never touched,
 * loaded by video clients (each submits a render, polls it until completed, submits the next); it
 * runs few jobs at once (VIDEO_CONCURRENCY), so it is saturated and its renders/s is its capacity:
 * the image pool scaled while the video pool stays, as the Kubernetes manifests run the roles.
 */
import { createRedis } from '../shared/src/redis/redis.ts';
import type { MediaStore } from './media-report.ts';
import { cpuSeconds, type MediaStack, type StackOptions } from './media-stack.ts';
import { median, percentile } from './stats.ts';

/** Jobs a video worker process runs at once here: low, so the video pool is the video path's limit. */
export const VIDEO_CONCURRENCY = 2;
export const VIDEO_CLIENTS = 8;
/** The first wait between two polls of a render (the worker's delayed reruns). */
const VIDEO_POLL_INTERVAL_MS = 100;
/** How often a video client asks for its render, and how often the waiting counts are read. */
const CLIENT_POLL_MS = 100;
const SAMPLE_MS = 250;
/** With video: settling time after each change, at least (a render's cycle is several seconds). */
const MIN_VIDEO_WARMUP_S = 5;

const IMAGE_BODY = JSON.stringify({
  model: 'openai/gpt-image-1',
  prompt: 'A lighthouse on a cliff at dusk, watercolour',
  n: 1,
  size: '1024x1024',
});
const VIDEO_BODY = JSON.stringify({
  model: 'openai/sora-2',
  prompt: 'A paper boat drifting down a rainy street',
  duration: 4,
  aspect_ratio: '16:9',
  resolution: '720p',
});

export interface PoolSettings {
  /** Image worker processes at each step, growing. */
  readonly imageSteps: readonly number[];
  readonly imageConcurrency: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  readonly delayMs: number;
  /** A video pool beside the image pool, loaded throughout. */
  readonly video: boolean;
}

/** Mean and max of a sampled count. */
export interface Sampled {
  mean: number;
  max: number;
}

export interface PoolStep {
  imageWorkers: number;
  videoWorkers: number;
  imageClients: number;
  imageJobsPerSecond: number;
  videosPerSecond: number;
  imageP50Ms: number;
  imageP99Ms: number;
  /** Submission to the client seeing `completed`. */
  videoP50Ms: number;
  imageWaiting: Sampled;
  videoWaiting: Sampled;
  errors: number;
  firstError: string;
  /** CPU seconds per second of the window (1.0 = one core busy). */
  cpu: Record<string, number>;
}

export interface PoolResult {
  settings: PoolSettings;
  steps: PoolStep[];
  store: MediaStore;
}

export interface PoolOptions {
  readonly phase: string;
  readonly script: { always(b: unknown): void };
  readonly settings: PoolSettings;
  /** Starts the phase's stack (media-bench's, on its scratch folders) with image workers and keys. */
  readonly startStack: (
    options: Pick<StackOptions, 'workers' | 'workerConcurrency' | 'keys' | 'env'>,
  ) => Promise<MediaStack>;
  readonly log: (line: string) => void;
  /** Reads the phase's store once its load ended (media-bench's measureStore). */
  readonly measureStore: (stack: MediaStack, phase: string) => Promise<MediaStore>;
}

interface Completion {
  at: number;
  ms: number;
}

/** Runs the phase: one stack, the pools loaded throughout, the image pool grown between windows. */
export async function poolPhase(o: PoolOptions): Promise<PoolResult> {
  const s = o.settings;
  const warmupS = s.video ? Math.max(s.warmupSeconds, MIN_VIDEO_WARMUP_S) : s.warmupSeconds;
  o.script.always({ kind: 'slow', delayMs: s.delayMs });
  const clientsAt = (workers: number) => 2 * workers * s.imageConcurrency;
  const stack = await o.startStack({
    workers: s.imageSteps[0] ?? 1,
    workerConcurrency: s.imageConcurrency,
    keys: clientsAt(Math.max(...s.imageSteps)) + VIDEO_CLIENTS,
    env: { VIDEO_POLL_INTERVAL_MS: String(VIDEO_POLL_INTERVAL_MS) },
  });
  const redis = createRedis(stack.redisUrl, { connectionName: `media-bench-${o.phase}` });
  try {
    if (s.video) await stack.addWorker('video', VIDEO_CONCURRENCY);
    const load = startLoad(stack, s.video ? VIDEO_CLIENTS : 0, o.log);
    const steps: PoolStep[] = [];
    for (const imageWorkers of s.imageSteps) {
      while (stack.pool('image').length < imageWorkers) await stack.addWorker('image', s.imageConcurrency);
      load.imageClients(clientsAt(imageWorkers));
      await sleep(warmupS * 1000);
      steps.push(await measureStep(stack, redis, load, s.seconds, clientsAt(imageWorkers)));
      const step = steps.at(-1);
      o.log(
        `${o.phase}: ${imageWorkers} image + ${step?.videoWorkers} video worker(s): ${step?.imageJobsPerSecond.toFixed(1)} image jobs/s, ${step?.videosPerSecond.toFixed(2)} videos/s, errors ${step?.errors}`,
      );
    }
    await load.stop();
    return { settings: s, steps, store: await o.measureStore(stack, o.phase) };
  } finally {
    await redis.quit();
    await stack.stop();
  }
}

/** One window of `seconds`: what completed in it, the waiting counts, each process's CPU. */
async function measureStep(
  stack: MediaStack,
  redis: ReturnType<typeof createRedis>,
  load: ReturnType<typeof startLoad>,
  seconds: number,
  imageClients: number,
): Promise<PoolStep> {
  const cpuBefore = cpuOf(stack);
  const from = performance.now();
  const waiting = await sampleWaiting(redis, stack.queuePrefix, seconds * 1000);
  const to = performance.now();
  const cpuAfter = cpuOf(stack);
  const inWindow = (list: Completion[]) => list.filter((c) => c.at >= from && c.at <= to);
  const [images, videos] = [inWindow(load.images), inWindow(load.videos)];
  const cpu = (name: string) => ((cpuAfter[name] ?? 0) - (cpuBefore[name] ?? 0)) / seconds;
  return {
    imageWorkers: stack.pool('image').length,
    videoWorkers: stack.pool('video').length,
    imageClients,
    imageJobsPerSecond: images.length / seconds,
    videosPerSecond: videos.length / seconds,
    imageP50Ms: median(images.map((c) => c.ms)),
    imageP99Ms: percentile(
      images.map((c) => c.ms),
      0.99,
    ),
    videoP50Ms: median(videos.map((c) => c.ms)),
    imageWaiting: waiting.image,
    videoWaiting: waiting.video,
    errors: load.errors.filter((at) => at >= from && at <= to).length,
    firstError: load.firstError(),
    cpu: Object.fromEntries(Object.keys(cpuAfter).map((name) => [name, cpu(name)])),
  };
}

/** The image and video clients, running until `stop`; completions timed on performance.now(). */
function startLoad(stack: MediaStack, videoClients: number, log: (line: string) => void) {
  const images: Completion[] = [];
  const videos: Completion[] = [];
  const errors: number[] = [];
  const clients: Promise<void>[] = [];
  let first = '';
  let running = true;
  const failed = (err: unknown) => {
    errors.push(performance.now());
    if (first !== '') return;
    first = String(err);
    log(`first error: ${first}`);
  };
  const key = (i: number) => stack.keys[i % stack.keys.length] ?? '';
  const timed = async (list: Completion[], run: () => Promise<boolean>) => {
    while (running) {
      const t = performance.now();
      try {
        if (await run()) list.push({ at: performance.now(), ms: performance.now() - t });
      } catch (err) {
        failed(err);
      }
    }
  };
  const image = (i: number) => async () => {
    await call(stack.url, key(i), 'POST', '/v1/images/generations', IMAGE_BODY, 200);
    return true;
  };
  const video = (i: number) => async () => {
    const created = await call(stack.url, key(i), 'POST', '/v1/videos', VIDEO_BODY, 202);
    const { id } = JSON.parse(created) as { id: string };
    for (let status = ''; running; ) {
      await sleep(CLIENT_POLL_MS);
      ({ status } = JSON.parse(await call(stack.url, key(i), 'GET', `/v1/videos/${id}`, undefined, 200)));
      if (status === 'failed') throw new Error(`video ${id} failed`);
      if (status === 'completed') return true;
    }
    return false;
  };
  for (let i = 0; i < videoClients; i++) clients.push(timed(videos, video(i)));
  let imageClients = 0;
  return {
    images,
    videos,
    errors,
    firstError: () => first,
    /** Adds image clients up to `count`. */
    imageClients(count: number) {
      for (; imageClients < count; imageClients++)
        clients.push(timed(images, image(videoClients + imageClients)));
    },
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

async function call(
  url: string,
  key: string,
  method: string,
  path: string,
  body: string | undefined,
  expected: number,
): Promise<string> {
  const headers = {
    authorization: `Bearer ${key}`,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  const res = await fetch(`${url}${path}`, { method, headers, body });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return text;
}

/** The waiting count of each pool's queue (what KEDA's `waiting` triggers read), every SAMPLE_MS for `ms`. */
async function sampleWaiting(
  redis: ReturnType<typeof createRedis>,
  prefix: string,
  ms: number,
): Promise<{ image: Sampled; video: Sampled }> {
  const image: number[] = [];
  const video: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    image.push(await redis.llen(`${prefix}:image:wait`));
    video.push(await redis.llen(`${prefix}:video:wait`));
    await sleep(Math.min(SAMPLE_MS, Math.max(0, end - performance.now())));
  }
  const summary = (xs: number[]) => ({
    mean: xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length),
    max: Math.max(0, ...xs),
  });
  return { image: summary(image), video: summary(video) };
}

/** CPU seconds so far: api, image pool, video pool, redis, this process (clients, fake provider, s3rver). */
function cpuOf(stack: MediaStack): Record<string, number> {
  const self = process.cpuUsage();
  const pool = (role: 'image' | 'video') => stack.pool(role).reduce((sum, w) => sum + cpuSeconds(w.pid), 0);
  return {
    api: cpuSeconds(stack.api.pid),
    'image workers': pool('image'),
    ...(stack.pool('video').length > 0 ? { 'video workers': pool('video') } : {}),
    redis: cpuSeconds(stack.redis.pid),
    'runner (clients, fake provider, s3rver)': (self.user + self.system) / 1e6,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
