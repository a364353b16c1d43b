import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRedis, startRedisServer } from '../../infra/local-services/redis-server.ts';
import { buildTestApp, type TestApp } from '../helpers/test-app.ts';
import { readObjects, renderKustomization, renderWithKubectl } from './kustomize.ts';
import {
  checkAutoscalers,
  checkContainers,
  checkDisruptionBudgets,
  checkGracePeriods,
  checkProbes,
  checkSelectors,
  checkWorkerRoles,
} from './manifest-checks.ts';
import type { Container, Deployment, K8sObject, ScaledObject, Service } from './manifests.ts';
import { envSources, expand, podConfigs, requiredVariables } from './pod-environment.ts';
import { checkQueueTriggers } from './queue-triggers.ts';

const K8S = fileURLToPath(new URL('../../infra/k8s/', import.meta.url));
const OVERLAY = `${K8S}overlays/production`;
const SECRET_TEMPLATES = readObjects(`${K8S}base/secrets.template.yaml`);

/** The production overlay, rendered without kubectl (the same as kubectl's: see the first test). */
const rendered = renderKustomization(OVERLAY);
/** kubectl's rendering, when kubectl is on the PATH. */
const kubectlRendering = renderWithKubectl(OVERLAY);

/** A copy of the rendering with `change` applied to the named object. */
function broken<T extends K8sObject>(name: string, kind: string, change: (object: T) => void): K8sObject[] {
  const copy = structuredClone(rendered);
  const object = copy.find((o) => o.kind === kind && o.metadata.name === name);
  if (object === undefined) throw new Error(`no ${kind}/${name} in the rendering`);
  change(object as T);
  return copy;
}

const podsOf = (objects: readonly K8sObject[]) => podConfigs(objects, envSources(objects, SECRET_TEMPLATES));
const containerOf = (d: Deployment) => d.spec.template.spec.containers[0] as Container;

describe('Kubernetes manifests (infra/k8s/overlays/production)', () => {
  it.skipIf(kubectlRendering === undefined)('renders the same with kubectl kustomize', () => {
    const key = (o: K8sObject) => `${o.apiVersion}/${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;
    const byKey = (objects: readonly K8sObject[]) => new Map(objects.map((o) => [key(o), o]));
    const kubectl = byKey(kubectlRendering ?? []);
    const ours = byKey(rendered);
    expect([...ours.keys()].sort()).toEqual([...kubectl.keys()].sort());
    for (const [name, object] of ours) expect(object, name).toEqual(kubectl.get(name));
  });

  it('has a built-in renderer that refuses what it does not render', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-kustomize-'));
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: []\ncommonLabels: {team: gateway}\n');
    expect(() => renderKustomization(dir)).toThrow('fields this renderer does not know: commonLabels');
  });

  it('expands $(VAR) in env values as the kubelet does', () => {
    expect(expand('$$(A) $(A) $(B)', { A: 'x' })).toBe('$(A) x $(B)');
  });

  it('gives every Deployment the variables the configuration requires, and the configuration loads', () => {
    expect(requiredVariables()).toContain('REDIS_URL');
    const { pods, problems } = podsOf(rendered);
    expect(problems).toEqual([]);
    expect(pods.length).toBe(5);
    const without = podsOf(
      broken<Deployment>('gateway-worker-video', 'Deployment', (d) => {
        const container = containerOf(d);
        container.env = container.env?.filter((v) => v.name !== 'REDIS_URL');
      }),
    );
    expect(without.problems).toContain(
      'Deployment/gateway-worker-video: REDIS_URL (required by the configuration) is not provided',
    );
    const sqlite = podsOf(
      broken<Deployment>('gateway-api', 'Deployment', (d) => {
        containerOf(d).env?.push({ name: 'MONGO_URL', value: '' });
      }),
    );
    expect(sqlite.problems).toContain(
      'Deployment/gateway-api: the store is sqlite; replicas need MongoDB (MONGO_URL)',
    );
  });

  it('runs one worker Deployment per queue role, each on that role alone', () => {
    expect(checkWorkerRoles(podsOf(rendered).pods)).toEqual([]);
    const twice = podsOf(
      broken<Deployment>('gateway-worker-speech', 'Deployment', (d) => {
        const queues = containerOf(d).env?.find((v) => v.name === 'WORKER_QUEUES');
        if (queues) queues.value = 'image';
      }),
    ).pods;
    expect(checkWorkerRoles(twice)).toEqual([
      'queue image: 2 worker Deployments (one expected)',
      'queue speech: 0 worker Deployments (one expected)',
    ]);
  });

  describe('probes', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await buildTestApp();
    });
    afterAll(async () => {
      await app.close();
    });
    const answer = async (path: string) => (await app.app.inject({ method: 'GET', url: path })).statusCode;

    it('point at routes the api serves, on the port it listens on', async () => {
      expect(await checkProbes(podsOf(rendered).pods, answer)).toEqual([]);
    });

    it('are reported when they point elsewhere', async () => {
      const wrongPath = broken<Deployment>('gateway-api', 'Deployment', (d) => {
        const probe = containerOf(d).readinessProbe?.httpGet;
        if (probe) probe.path = '/ready';
      });
      expect(await checkProbes(podsOf(wrongPath).pods, answer)).toEqual([
        "Deployment/gateway-api: the readiness probe's /ready answers 404",
      ]);
      const wrongPort = broken<Deployment>('gateway-api', 'Deployment', (d) => {
        const port = containerOf(d).env?.find((v) => v.name === 'PORT');
        if (port) port.value = '9090';
      });
      expect(await checkProbes(podsOf(wrongPort).pods, answer)).toContain(
        "Deployment/gateway-api: the liveness probe's port http is not the listening port 9090",
      );
    });
  });

  it('lets every pod close gracefully before it is killed', () => {
    expect(checkGracePeriods(podsOf(rendered).pods)).toEqual([]);
    const short = broken<Deployment>('gateway-worker-transcription', 'Deployment', (d) => {
      d.spec.template.spec.terminationGracePeriodSeconds = 60;
    });
    expect(checkGracePeriods(podsOf(short).pods)).toEqual([
      'Deployment/gateway-worker-transcription: termination grace 60000 ms < preStop + SHUTDOWN_TIMEOUT_MS + margin = 130000 ms',
    ]);
    const longPause = broken<Deployment>('gateway-api', 'Deployment', (d) => {
      const hook = containerOf(d).lifecycle?.preStop?.exec;
      if (hook) hook.command = ['sleep', '30'];
    });
    expect(checkGracePeriods(podsOf(longPause).pods)).toEqual([
      'Deployment/gateway-api: termination grace 140000 ms < preStop + SHUTDOWN_TIMEOUT_MS + margin = 160000 ms',
    ]);
  });

  it('covers every Deployment by one PodDisruptionBudget', () => {
    expect(checkDisruptionBudgets(rendered)).toEqual([]);
    const without = rendered.filter(
      (o) => !(o.kind === 'PodDisruptionBudget' && o.metadata.name === 'gateway-worker-video'),
    );
    expect(checkDisruptionBudgets(without)).toEqual([
      'Deployment/gateway-worker-video: 0 PodDisruptionBudgets',
    ]);
  });

  it('bounds every container and pins its image', () => {
    expect(checkContainers(rendered)).toEqual([]);
    const latest = broken<Deployment>('gateway-worker-image', 'Deployment', (d) => {
      const container = containerOf(d);
      container.image = 'registry.example.com/model-gateway:latest';
      delete container.resources?.limits?.memory;
    });
    expect(checkContainers(latest)).toEqual([
      'Deployment/gateway-worker-image container worker: no memory limits',
      'Deployment/gateway-worker-image container worker: image registry.example.com/model-gateway:latest is not pinned (no tag, or latest)',
    ]);
  });

  it('leaves every replica count to one autoscaler, and selects its own pods', () => {
    expect(checkAutoscalers(rendered)).toEqual([]);
    expect(checkSelectors(rendered)).toEqual([]);
    const fixed = broken<Deployment>('gateway-api', 'Deployment', (d) => {
      d.spec.replicas = 3;
    });
    expect(checkAutoscalers(fixed)).toEqual([
      'Deployment/gateway-api: sets replicas, which its autoscaler owns',
    ]);
    const unscaled = rendered.filter((o) => o.kind !== 'HorizontalPodAutoscaler');
    expect(checkAutoscalers(unscaled)).toEqual(['Deployment/gateway-api: 0 autoscalers']);
    const misrouted = broken<Service>('gateway-api', 'Service', (s) => {
      const [port] = s.spec.ports;
      if (port) port.targetPort = 'grpc';
    });
    expect(checkSelectors(misrouted)).toEqual([
      'Service/gateway-api: port 80 targets grpc, not a port of Deployment/gateway-api',
    ]);
  });

  describe('KEDA triggers', () => {
    let redis: LocalRedis;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await redis.process.stop();
    });

    it("measure the lists BullMQ keeps each role's waiting and running jobs in, on the pods' Redis", async () => {
      expect(await checkQueueTriggers(rendered, podsOf(rendered).pods, redis.url)).toEqual([]);
    }, 60_000);

    it('are reported when they measure another list or another Redis', async () => {
      const wrong = broken<ScaledObject>('gateway-worker-image', 'ScaledObject', (s) => {
        const [waiting, active] = s.spec.triggers;
        if (waiting) waiting.metadata.listName = 'gw:image:waiting';
        if (active) {
          active.metadata.addressFromEnv = 'REDIS_HOST';
          active.metadata.listLength = '5';
        }
      });
      const problems = await checkQueueTriggers(wrong, podsOf(wrong).pods, redis.url);
      expect(problems).toEqual([
        "ScaledObject/gateway-worker-image active: address undefined differs from the pod's redis.example.internal:6379",
        "ScaledObject/gateway-worker-image active: listLength 5 differs from the pod's 8",
        'ScaledObject/gateway-worker-image waiting: gw:image:waiting is a none, not a list, once a job is enqueued',
        'ScaledObject/gateway-worker-image waiting: gw:image:waiting holds 0 jobs once a job is enqueued (1 expected)',
      ]);
    }, 60_000);
  });
});
