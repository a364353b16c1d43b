/**
 * Each worker role's KEDA ScaledObject measures the Redis lists BullMQ really keeps that queue's
 * jobs in, on the Redis the pods use: its `waiting` trigger the list a job the api enqueues lands
 * in, its `active` trigger the list a running job sits in. Both are found by doing it: the
 * project's own producer enqueues a job and the project's own worker runs it, on a Redis given by
 * the test (which this empties: give it one of its own), under the queue prefix the pod's
 * configuration loads.
 */
import type { Worker } from 'bullmq';
import {
  closeQueues,
  createQueues,
  enqueueMediaJob,
  JOB_NAME_BY_QUEUE,
} from '../../shared/src/jobs/job-catalogue.ts';
import type { QueueName } from '../../shared/src/jobs/queue-names.ts';
import { createRedis, type Redis } from '../../shared/src/redis/redis.ts';
import { closeWorkers, runWorkers } from '../../workers/src/run-workers.ts';
import { captureLogger } from '../helpers/capture-logger.ts';
import { processOf } from './manifest-checks.ts';
import { type K8sObject, nameOf, ofKind, type RedisTrigger, type ScaledObject } from './manifests.ts';
import type { PodConfig } from './pod-environment.ts';

/** The trigger names the ScaledObjects give their two measures. */
export const TRIGGERS = ['waiting', 'active'] as const;

const JOB_ID = 'k8s-manifest-check';
const RUN_TIMEOUT_MS = 10_000;

/** The problems of every worker role's ScaledObject, its settings and its lists. */
export async function checkQueueTriggers(
  objects: readonly K8sObject[],
  pods: readonly PodConfig[],
  redisUrl: string,
): Promise<string[]> {
  const problems: string[] = [];
  const scaledObjects = ofKind<ScaledObject>(objects, 'ScaledObject');
  const connection = createRedis(redisUrl, { forBullmq: true, connectionName: 'k8s-manifest-check' });
  try {
    for (const pod of pods) {
      const role = pod.config?.worker.queues[0];
      if (processOf(pod) !== 'worker' || role === undefined) continue;
      const { name, namespace } = pod.deployment.metadata;
      const scaled = scaledObjects.find(
        (s) => s.spec.scaleTargetRef.name === name && s.metadata.namespace === namespace,
      );
      if (scaled === undefined) {
        problems.push(`${nameOf(pod.deployment)}: no ScaledObject`);
        continue;
      }
      problems.push(...triggerSettings(scaled, pod, role));
      problems.push(...(await triggerLists(scaled, pod, role, connection)));
    }
  } finally {
    await connection.quit();
  }
  return problems;
}

function triggerOf(scaled: ScaledObject, name: string): RedisTrigger | undefined {
  return scaled.spec.triggers.find((trigger) => trigger.name === name);
}

/**
 * The Redis each trigger reaches is the one in the pod's REDIS_URL (address, password, TLS,
 * database), read from the pod's own environment; its target is one pod's concurrency of jobs.
 */
function triggerSettings(scaled: ScaledObject, pod: PodConfig, role: QueueName): string[] {
  const where = nameOf(scaled);
  const config = pod.config;
  if (config === undefined) return [];
  if (config.redis.mode !== 'single')
    return [`${where}: the triggers follow REDIS_URL; this pod sets ${config.redis.mode} Redis`];
  const url = new URL(config.redis.url);
  const problems: string[] = [];
  const min = scaled.spec.minReplicaCount ?? 0;
  if (min < 1)
    problems.push(`${where}: minReplicaCount ${min}; a role needs one pod for its synchronous requests`);
  if ((scaled.spec.maxReplicaCount ?? 100) < min)
    problems.push(`${where}: maxReplicaCount below minReplicaCount`);
  for (const name of TRIGGERS) {
    const trigger = triggerOf(scaled, name);
    if (trigger === undefined || trigger.type !== 'redis') {
      problems.push(`${where}: no redis trigger named ${name}`);
      continue;
    }
    const m = trigger.metadata;
    // A value written in the trigger, or read from the variable its `<field>FromEnv` names in the pod.
    const fromEnv = (field: string) => {
      const variable = m[`${field}FromEnv`];
      return m[field] ?? (variable === undefined ? undefined : pod.env[variable]);
    };
    if (m.password !== undefined) problems.push(`${where} ${name}: a literal password in the manifest`);
    const expected = {
      address: `${url.hostname}:${url.port || '6379'}`,
      password: decodeURIComponent(url.password),
      enableTLS: String(url.protocol === 'rediss:'),
      databaseIndex: url.pathname.slice(1) || '0',
      listLength: String(config.worker.concurrency[role]),
    };
    const actual = {
      address: fromEnv('address'),
      password: fromEnv('password') ?? '',
      enableTLS: m.enableTLS ?? 'false',
      databaseIndex: m.databaseIndex ?? '0',
      listLength: m.listLength,
    };
    for (const [field, value] of Object.entries(expected)) {
      const got = actual[field as keyof typeof actual];
      if (got !== value)
        problems.push(
          `${where} ${name}: ${field} ${field === 'password' ? '(hidden)' : got} differs from the pod's ${field === 'password' ? '(hidden)' : value}`,
        );
    }
  }
  return problems;
}

/** Enqueues a job of `role` as the api does, then runs it as a worker does, reading both lists. */
async function triggerLists(
  scaled: ScaledObject,
  pod: PodConfig,
  role: QueueName,
  redis: Redis,
): Promise<string[]> {
  const config = pod.config;
  const waiting = triggerOf(scaled, 'waiting')?.metadata.listName;
  const active = triggerOf(scaled, 'active')?.metadata.listName;
  if (config === undefined || waiting === undefined || active === undefined) return [];
  const where = nameOf(scaled);
  const problems: string[] = [];
  const expectLength = async (trigger: string, list: string, length: number, when: string) => {
    const [type, count] = [await redis.type(list), await redis.llen(list)];
    if (length > 0 && type !== 'list')
      problems.push(`${where} ${trigger}: ${list} is a ${type}, not a list, ${when}`);
    if (count !== length)
      problems.push(`${where} ${trigger}: ${list} holds ${count} jobs ${when} (${length} expected)`);
  };
  await redis.flushdb();
  const queues = createQueues(redis, config.queues.prefix);
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let workers: Worker[] = [];
  try {
    await enqueueMediaJob(queues, role, JOB_ID);
    await expectLength('waiting', waiting, 1, 'once a job is enqueued');
    let started = () => {};
    const running = new Promise<void>((resolve, reject) => {
      started = resolve;
      setTimeout(() => reject(new Error(`${where}: no worker ran the job`)), RUN_TIMEOUT_MS).unref();
    });
    workers = runWorkers({
      connection: redis,
      prefix: config.queues.prefix,
      queues: [role],
      concurrency: config.worker.concurrency,
      processors: {
        [role]: {
          [JOB_NAME_BY_QUEUE[role]]: async () => {
            started();
            await held;
          },
        },
      },
      logger: captureLogger().logger,
    });
    await running;
    await expectLength('active', active, 1, 'while a worker runs the job');
    await expectLength('waiting', waiting, 0, 'while a worker runs the job');
  } finally {
    release();
    await closeWorkers(workers);
    await closeQueues(queues);
  }
  return problems;
}
