/**
 * The per-role phase of `node bench/media-bench.ts`: image and video workers as separate pools
 * (`WORKER_QUEUES=image` and `WORKER_QUEUES=video` processes, as the Kubernetes manifests run one
 * Deployment per role), under load on both at once. Inside one running stack the image pool grows
 * step by step (MEDIA_BENCH_ROLES, "1,2": image worker processes at each step), as KEDA adds pods
 * to the image Deployment, while the video pool stays at one process. Each step measures image
 * jobs/s, video renders/s and the waiting counts KEDA's triggers read (`LLEN <prefix>:<queue>:wait`).
 *
 * Image clients: a closed loop of synchronous image requests, 2 x the largest image pool's
 * concurrency, the same at every step. Video clients: each submits a render (`POST /v1/videos`),
 * polls it until completed, and submits the next; the video pool runs few jobs at once
 * (VIDEO_CONCURRENCY), so it is saturated and its renders/s is its own capacity.
 */
import { createRedis } from '../shared/src/redis/redis.ts';
import type { MediaStore } from './media-report.ts';
import { cpuSeconds, type MediaStack, startMediaStack } from './media-stack.ts';
import { median } from './stats.ts';

/** Jobs a video worker process runs at once here: low, so the video pool is the video path's limit. */
export const VIDEO_CONCURRENCY = 2;
const VIDEO_CLIENTS = 8;
/** The first wait between two polls of a render (the worker's delayed reruns). */
const VIDEO_POLL_INTERVAL_MS = 100;
/** How often a video client asks for its render, and how often the waiting counts are read. */
const CLIENT_POLL_MS = 100;
const SAMPLE_MS = 250;
/**
 * Settling time after each change, at least: a video client's cycle (queue, 4 provider calls, its
 * polls) is several seconds, and the first window also follows the pools' start.
 */
const MIN_WARMUP_S = 5;

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

export interface RolesSettings {
  /** Image worker processes at each step, growing. */
  readonly imageSteps: readonly number[];
  readonly imageConcurrency: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  readonly delayMs: number;
}

/** Mean and max of a sampled count. */
export interface Sampled {
  mean: number;
  max: number;
}

export interface RolesStep {
  imageWorkers: number;
  videoWorkers: number;
  imageJobsPerSecond: number;
  videosPerSecond: number;
  imageP50Ms: number;
  /** Submission to the client seeing `completed`. */
  videoP50Ms: number;
  imageWaiting: Sampled;
  videoWaiting: Sampled;
  errors: number;
  firstError: string;
  /** CPU seconds per second of the window (1.0 = one core busy). */
  cpu: Record<string, number>;
}

export interface RolesResult {
  settings: RolesSettings & { videoConcurrency: number; imageClients: number; videoClients: number };
  steps: RolesStep[];
  store: MediaStore;
}

export interface RolesOptions {
  readonly root: string;
  readonly upstreamUrl: string;
  readonly script: { always(b: unknown): void };
  readonly settings: RolesSettings;
  readonly s3Dir: string;
  readonly storeDir: string;
  readonly logDir: string;
  readonly log: (line: string) => void;
  /** Reads the phase's store once its load ended (media-bench's measureStore). */
  readonly measureStore: (stack: MediaStack, phase: string) => Promise<MediaStore>;
}

interface Completion {
  at: number;
  ms: number;
}

/** Runs the phase: one stack, both pools loaded throughout, the image pool grown between windows. */
export async function rolesPhase(o: RolesOptions): Promise<RolesResult> {
  const s = { ...o.settings, warmupSeconds: Math.max(o.settings.warmupSeconds, MIN_WARMUP_S) };
  o.script.always({ kind: 'slow', delayMs: s.delayMs });
  const imageClients = 2 * Math.max(...s.imageSteps) * s.imageConcurrency;
  const stack = await startMediaStack({
    root: o.root,
    phase: 'roles',
    upstreamUrl: o.upstreamUrl,
    workers: s.imageSteps[0] ?? 1,
    workerConcurrency: s.imageConcurrency,
    s3Dir: o.s3Dir,
    storeDir: o.storeDir,
    logDir: o.logDir,
    keys: imageClients + VIDEO_CLIENTS,
    log: o.log,
    env: { VIDEO_POLL_INTERVAL_MS: String(VIDEO_POLL_INTERVAL_MS) },
  });
  const redis = createRedis(stack.redisUrl, { connectionName: 'media-bench-roles' });
  try {
    await stack.addWorker('video', VIDEO_CONCURRENCY);
    const load = startLoad(stack, imageClients, o.log);
    const steps: RolesStep[] = [];
    for (const imageWorkers of s.imageSteps) {
      while (stack.pool('image').length < imageWorkers) await stack.addWorker('image', s.imageConcurrency);
      await sleep(s.warmupSeconds * 1000);
      const cpuBefore = cpuOf(stack);
      const from = performance.now();
      const waiting = await sampleWaiting(redis, stack.queuePrefix, s.seconds * 1000);
      const to = performance.now();
      const cpuAfter = cpuOf(stack);
      const images = load.images.filter((c) => c.at >= from && c.at <= to);
      const videos = load.videos.filter((c) => c.at >= from && c.at <= to);
      const step: RolesStep = {
        imageWorkers,
        videoWorkers: stack.pool('video').length,
        imageJobsPerSecond: images.length / s.seconds,
        videosPerSecond: videos.length / s.seconds,
        imageP50Ms: median(images.map((c) => c.ms)),
        videoP50Ms: median(videos.map((c) => c.ms)),
        imageWaiting: waiting.image,
        videoWaiting: waiting.video,
        errors: load.errors.filter((at) => at >= from && at <= to).length,
        firstError: load.firstError(),
        cpu: Object.fromEntries(
          Object.keys(cpuAfter).map((name) => [
            name,
            ((cpuAfter[name] ?? 0) - (cpuBefore[name] ?? 0)) / s.seconds,
          ]),
        ),
      };
      o.log(
        `roles: ${imageWorkers} image + ${step.videoWorkers} video worker(s): ${step.imageJobsPerSecond.toFixed(1)} image jobs/s, ${step.videosPerSecond.toFixed(2)} videos/s, waiting image ${step.imageWaiting.mean.toFixed(1)} video ${step.videoWaiting.mean.toFixed(1)}, errors ${step.errors}`,
      );
      steps.push(step);
    }
    await load.stop();
    const store = await o.measureStore(stack, 'roles');
    return {
      settings: { ...s, videoConcurrency: VIDEO_CONCURRENCY, imageClients, videoClients: VIDEO_CLIENTS },
      steps,
      store,
    };
  } finally {
    await redis.quit();
    await stack.stop();
  }
}

/** The image and video clients, running until `stop`; completions timed on performance.now(). */
function startLoad(stack: MediaStack, imageClients: number, log: (line: string) => void) {
  const images: Completion[] = [];
  const videos: Completion[] = [];
  const errors: number[] = [];
  let first = '';
  let running = true;
  const failed = (err: unknown) => {
    errors.push(performance.now());
    if (first === '') {
      first = String(err);
      log(`roles: first error: ${first}`);
    }
  };
  const key = (i: number) => stack.keys[i % stack.keys.length] ?? '';
  const imageClient = async (i: number) => {
    while (running) {
      const t = performance.now();
      try {
        await call(stack.url, key(i), 'POST', '/v1/images/generations', IMAGE_BODY, 200);
        images.push({ at: performance.now(), ms: performance.now() - t });
      } catch (err) {
        failed(err);
      }
    }
  };
  const videoClient = async (i: number) => {
    while (running) {
      const t = performance.now();
      try {
        const { id } = JSON.parse(await call(stack.url, key(i), 'POST', '/v1/videos', VIDEO_BODY, 202)) as {
          id: string;
        };
        let status = '';
        while (running && status !== 'completed') {
          await sleep(CLIENT_POLL_MS);
          ({ status } = JSON.parse(
            await call(stack.url, key(i), 'GET', `/v1/videos/${id}`, undefined, 200),
          ) as {
            status: string;
          });
          if (status === 'failed') throw new Error(`video ${id} failed`);
        }
        if (status === 'completed') videos.push({ at: performance.now(), ms: performance.now() - t });
      } catch (err) {
        failed(err);
      }
    }
  };
  const clients = [
    ...Array.from({ length: imageClients }, (_, i) => imageClient(i)),
    ...Array.from({ length: VIDEO_CLIENTS }, (_, i) => videoClient(imageClients + i)),
  ];
  return {
    images,
    videos,
    errors,
    firstError: () => first,
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
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  });
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
    'video workers': pool('video'),
    redis: cpuSeconds(stack.redis.pid),
    'runner (clients, fake provider, s3rver)': (self.user + self.system) / 1e6,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
