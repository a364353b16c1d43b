/**
 * The media path end to end: the real api (listening, real Redis / MongoDB-wire / S3) in front of
 * the fake media upstreams (OpenAI, Groq as a second OpenAI-format fake, Google, ElevenLabs), and
 * worker PROCESSES (`node workers/src/main.ts`) spawned on the same stores — the same database,
 * bucket and queue prefix as the api. Clients are the official `openai` SDK where it can express
 * the call.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll } from 'vitest';
import { irtToMicros } from '../../shared/src/billing/money.ts';
import type { QueueName } from '../../shared/src/jobs/queue-names.ts';
import type { MediaJob, MediaKind } from '../../shared/src/media-jobs/media-job.ts';
import { mediaJobIdFor } from '../../shared/src/media-jobs/media-jobs.repository.ts';
import { type ElevenLabsUpstream, startElevenLabsUpstream } from '../fakes/elevenlabs-upstream.ts';
import type { VeoFakeOptions } from '../fakes/google-media-operations.ts';
import { type GoogleMediaUpstream, startGoogleMediaUpstream } from '../fakes/google-media-upstream.ts';
import {
  type OpenAIMediaUpstream,
  type OpenAIMediaUpstreamOptions,
  startOpenAIMediaUpstream,
} from '../fakes/openai-media-upstream.ts';
import { DEFAULT_FAKE_KEY } from '../fakes/openai-upstream.ts';
import { type CreatedKey, createFundedKey, TEST_ADMIN_TOKEN } from './admin-client.ts';
import { lateBound, made } from './late-bound.ts';
import { type ListeningApp, startListeningApp } from './listening-app.ts';
import { type SpawnedEntry, spawnEntry } from './spawn-entry.ts';
import { countMediaJobs } from './store-probe.ts';
import { storeEnvironmentOf, testEnvironment } from './test-config.ts';

export const GROQ_FAKE_KEY = 'gsk_test_key';
export const GOOGLE_FAKE_KEY = 'test-gemini-key';
export const ELEVENLABS_FAKE_KEY = 'test-elevenlabs-key';

export interface MediaFakes {
  readonly openai: OpenAIMediaUpstream;
  /** The same OpenAI-format fake, accepting Groq's key only (Groq's transcription API). */
  readonly groq: OpenAIMediaUpstream;
  readonly google: GoogleMediaUpstream;
  readonly elevenlabs: ElevenLabsUpstream;
}

export interface MediaGatewayOptions {
  /** Extra api environment (e.g. MEDIA_WAIT_TIMEOUT_MS). */
  readonly apiEnv?: Record<string, string>;
  /** Extra environment of every spawned worker (each `startWorker` may add more). */
  readonly workerEnv?: Record<string, string>;
  readonly openai?: OpenAIMediaUpstreamOptions;
  readonly google?: VeoFakeOptions;
}

export interface MediaClient extends CreatedKey {
  readonly client: OpenAI;
}

export interface MediaGateway {
  readonly gateway: ListeningApp;
  readonly fakes: MediaFakes;
  /**
   * Spawns a worker process on the gateway's stores and resolves once its BullMQ workers are
   * registered in Redis (one more worker on each of its queues).
   */
  startWorker(env?: Record<string, string>): Promise<SpawnedEntry>;
  /**
   * A new account with `topUp` Toman (default 1,000,000), a key and an SDK client for it. The key
   * allows 3000 requests a minute (the spec's maximum): polling tests make many.
   */
  fundedClient(topUp?: number): Promise<MediaClient>;
  /** The wallet, once the charges queued for the group commit are written. */
  balanceMicros(accountId: string): Promise<bigint>;
  /** The account's charge entries (top-ups left out), newest first. */
  charges(accountId: string): Promise<Array<{ id: string; amountMicros: bigint }>>;
  /** How many media job documents exist (all accounts). */
  jobCount(): Promise<number>;
  job(id: string): Promise<MediaJob | null>;
  /** Resolves with the BullMQ state of a job once it is `completed` or `failed`. */
  bullJobEnded(queue: QueueName, jobId: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

const ALL_QUEUES: readonly QueueName[] = ['image', 'speech', 'transcription', 'video'];

export async function startMediaGateway(options: MediaGatewayOptions = {}): Promise<MediaGateway> {
  const [openai, groq, google, elevenlabs] = await Promise.all([
    startOpenAIMediaUpstream(options.openai),
    startOpenAIMediaUpstream({ apiKey: GROQ_FAKE_KEY }),
    startGoogleMediaUpstream({ apiKey: GOOGLE_FAKE_KEY, ...options.google }),
    startElevenLabsUpstream({ apiKey: ELEVENLABS_FAKE_KEY }),
  ]);
  const providerEnv = {
    OPENAI_BASE_URL: openai.url,
    OPENAI_API_KEY: DEFAULT_FAKE_KEY,
    GROQ_BASE_URL: groq.url,
    GROQ_API_KEY: GROQ_FAKE_KEY,
    GOOGLE_BASE_URL: google.url,
    GOOGLE_API_KEY: GOOGLE_FAKE_KEY,
    ELEVENLABS_BASE_URL: elevenlabs.url,
    ELEVENLABS_API_KEY: ELEVENLABS_FAKE_KEY,
  };
  const gateway = await startListeningApp({
    env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...providerEnv, ...options.apiEnv },
  });
  const { config } = gateway;
  const { queues } = gateway.services.media;
  const spawned: SpawnedEntry[] = [];

  const workerCounts = () => Promise.all(ALL_QUEUES.map((queue) => queues[queue].getWorkersCount()));

  return {
    gateway,
    fakes: { openai, groq, google, elevenlabs },

    async startWorker(env = {}) {
      const merged = { ...options.workerEnv, ...env };
      const roles = (merged.WORKER_QUEUES ?? ALL_QUEUES.join(','))
        .split(',')
        .map((q) => q.trim()) as QueueName[];
      const before = await workerCounts();
      const worker = spawnEntry(
        'workers/src/main.ts',
        testEnvironment({
          LOG_LEVEL: 'warn',
          // The api's stores: one database, bucket and queue prefix for both processes.
          ...storeEnvironmentOf(config),
          S3_BUCKET: config.s3.bucket,
          QUEUE_PREFIX: config.queues.prefix,
          ...providerEnv,
          ...merged,
        }),
      );
      spawned.push(worker);
      await waitUntil(async () => {
        if (worker.child.exitCode !== null) throw new Error(`worker exited:\n${worker.output()}`);
        const after = await workerCounts();
        return roles.every((queue) => {
          const i = ALL_QUEUES.indexOf(queue);
          return (after[i] ?? 0) > (before[i] ?? 0);
        });
      }, 20_000);
      return worker;
    },

    async fundedClient(topUp = 1_000_000) {
      const key = await createFundedKey(gateway.app, { topUp, settings: { rate_limit: 3000 } });
      const client = new OpenAI({ apiKey: key.key, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
      return { ...key, client };
    },

    // Synchronous media charges go through the group commit: write what is queued before reading.
    async balanceMicros(accountId) {
      await gateway.services.billing.flush();
      return gateway.services.billing.balanceOf(accountId);
    },

    async charges(accountId) {
      await gateway.services.billing.flush();
      const entries = await gateway.services.billing.listLedger(accountId, { limit: 100 });
      return entries
        .filter((entry) => entry.kind === 'charge')
        .map((entry) => ({ id: entry.id, amountMicros: entry.amountMicros }));
    },

    jobCount: () => countMediaJobs(config),

    job: (id) => gateway.services.media.jobs.findById(id),

    async bullJobEnded(queue, jobId, timeoutMs = 15_000) {
      let state = 'unknown';
      await waitUntil(async () => {
        state = await queues[queue].getJobState(jobId);
        return state === 'completed' || state === 'failed';
      }, timeoutMs);
      return state;
    },

    async close() {
      for (const worker of spawned) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      await Promise.all(spawned.map((worker) => worker.exited(5_000)));
      await gateway.close();
      await Promise.all([openai, groq, google, elevenlabs].map((fake) => fake.close()));
    },
  };
}

/** Polls `check` every 50 ms until it is true; fails after `timeoutMs`. */
export async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A cost in Toman as the api reports it (`service.cost`, `X-Service-Cost`), in exact µIRT. */
export function costMicros(cost: number | string | null | undefined): bigint {
  if (cost === null || cost === undefined) throw new Error('no cost was reported');
  return irtToMicros(cost);
}

/** The service's cost record on an answer (an extension the SDK types lack). */
export function serviceOf(value: unknown): { model?: string; cost: number; currency: string } {
  const service = (value as { service?: { model?: string; cost: number; currency: string } }).service;
  if (service === undefined) throw new Error('the answer carries no `service` cost record');
  return service;
}

/** The media job id a synchronous request created (derived from its `X-Request-Id`). */
export function jobIdOf(kind: MediaKind, requestId: string | null | undefined): string {
  if (requestId === null || requestId === undefined) throw new Error('the answer has no X-Request-Id');
  return mediaJobIdFor(kind, requestId);
}

/**
 * The media gateway of a test file, a worker process with `workerEnv`, and a funded user: started
 * before its tests and closed after them.
 */
export function useMediaGateway(
  options: MediaGatewayOptions,
  workerEnv: Record<string, string>,
): { m: MediaGateway; user: MediaClient } {
  let m: MediaGateway | undefined;
  let user: MediaClient | undefined;
  beforeAll(async () => {
    m = await startMediaGateway(options);
    await m.startWorker(workerEnv);
    user = await m.fundedClient();
  });
  afterAll(async () => {
    await m?.close();
  });
  return { m: lateBound(() => made(m, 'the media gateway')), user: lateBound(() => made(user, 'the user')) };
}
