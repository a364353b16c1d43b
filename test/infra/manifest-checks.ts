/**
 * The invariants of the rendered manifests (infra/k8s), each a function returning the problems it
 * finds (an empty list: it holds), so the test can also show each one catching a broken rendering.
 */
import { QUEUE_NAMES } from '../../shared/src/jobs/queue-names.ts';
import { splitImage } from './kustomize.ts';
import {
  type Deployment,
  type HorizontalPodAutoscaler,
  type K8sObject,
  nameOf,
  ofKind,
  type PodDisruptionBudget,
  type Probe,
  type ScaledObject,
  type Service,
  selects,
} from './manifests.ts';
import type { PodConfig } from './pod-environment.ts';

/** What the grace period must leave beyond the preStop pause and the shutdown budget. */
export const GRACE_MARGIN_MS = 5_000;

const ENTRIES = { 'api/src/main.ts': 'api', 'workers/src/main.ts': 'worker' } as const;

/** Which process a pod runs, from its container's command (the image's entry points). */
export function processOf(pod: PodConfig): 'api' | 'worker' | undefined {
  const entry = (pod.container.command ?? []).find((part): part is keyof typeof ENTRIES => part in ENTRIES);
  return entry === undefined ? undefined : ENTRIES[entry];
}

/** One worker Deployment per queue role, each running that role alone; every pod runs a known entry. */
export function checkWorkerRoles(pods: readonly PodConfig[]): string[] {
  const problems: string[] = [];
  const roles: string[] = [];
  for (const pod of pods) {
    const where = nameOf(pod.deployment);
    const process = processOf(pod);
    if (process === undefined) problems.push(`${where}: the command runs neither the api nor the worker`);
    if (process !== 'worker' || pod.config === undefined) continue;
    const queues = pod.config.worker.queues;
    if (queues.length !== 1) problems.push(`${where}: runs ${queues.join(', ')}; one role per Deployment`);
    roles.push(...queues);
  }
  for (const role of QUEUE_NAMES) {
    const count = roles.filter((r) => r === role).length;
    if (count !== 1) problems.push(`queue ${role}: ${count} worker Deployments (one expected)`);
  }
  return problems;
}

/** The pause of a container's preStop hook (`sleep N` or the sleep action), in ms. */
export function preStopMs(pod: PodConfig): number {
  const hook = pod.container.lifecycle?.preStop;
  if (hook === undefined) return 0;
  if (hook.sleep !== undefined) return hook.sleep.seconds * 1000;
  const [program, seconds, ...rest] = hook.exec?.command ?? [];
  if (program?.endsWith('sleep') && rest.length === 0 && /^\d+$/.test(seconds ?? ''))
    return Number(seconds) * 1000;
  throw new Error(`${nameOf(pod.deployment)}: a preStop hook other than a sleep`);
}

/**
 * The kubelet sends SIGTERM after the preStop hook, then SIGKILL when the grace period ends: it must
 * cover the hook, SHUTDOWN_TIMEOUT_MS and a margin. The api's budget also covers a synchronous media
 * request's wait (MEDIA_WAIT_TIMEOUT_MS), so a rollout lets those finish.
 */
export function checkGracePeriods(pods: readonly PodConfig[]): string[] {
  const problems: string[] = [];
  for (const pod of pods) {
    if (pod.config === undefined) continue;
    const where = nameOf(pod.deployment);
    const graceMs = (pod.deployment.spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000;
    const needed = preStopMs(pod) + pod.config.shutdownTimeoutMs + GRACE_MARGIN_MS;
    if (graceMs < needed)
      problems.push(
        `${where}: termination grace ${graceMs} ms < preStop + SHUTDOWN_TIMEOUT_MS + margin = ${needed} ms`,
      );
    if (processOf(pod) === 'api' && pod.config.shutdownTimeoutMs < pod.config.media.waitTimeoutMs)
      problems.push(`${where}: SHUTDOWN_TIMEOUT_MS is shorter than MEDIA_WAIT_TIMEOUT_MS`);
  }
  return problems;
}

/** Every Deployment's pods are covered by exactly one PodDisruptionBudget of its namespace. */
export function checkDisruptionBudgets(objects: readonly K8sObject[]): string[] {
  const budgets = ofKind<PodDisruptionBudget>(objects, 'PodDisruptionBudget');
  return ofKind<Deployment>(objects, 'Deployment').flatMap((deployment) => {
    const labels = deployment.spec.template.metadata.labels;
    const covering = budgets.filter(
      (b) =>
        b.metadata.namespace === deployment.metadata.namespace &&
        selects(b.spec.selector.matchLabels, labels),
    );
    return covering.length === 1 ? [] : [`${nameOf(deployment)}: ${covering.length} PodDisruptionBudgets`];
  });
}

/** Every container requests and limits CPU and memory, and runs a pinned image (a tag other than latest, or a digest). */
export function checkContainers(objects: readonly K8sObject[]): string[] {
  return ofKind<Deployment>(objects, 'Deployment').flatMap((deployment) => {
    const pod = deployment.spec.template.spec;
    return [...pod.containers, ...(pod.initContainers ?? [])].flatMap((container) => {
      const where = `${nameOf(deployment)} container ${container.name}`;
      const problems: string[] = [];
      for (const bound of ['requests', 'limits'] as const)
        for (const resource of ['cpu', 'memory'])
          if (!container.resources?.[bound]?.[resource]) problems.push(`${where}: no ${resource} ${bound}`);
      const { reference } = splitImage(container.image);
      if (reference === '' || reference === ':latest')
        problems.push(`${where}: image ${container.image} is not pinned (no tag, or latest)`);
      return problems;
    });
  });
}

/**
 * Every Deployment has exactly one autoscaler (a HorizontalPodAutoscaler or a KEDA ScaledObject),
 * which owns its replica count: the Deployment sets none (each apply would reset it). CPU targets
 * need CPU requests (checkContainers).
 */
export function checkAutoscalers(objects: readonly K8sObject[]): string[] {
  const hpas = ofKind<HorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler');
  const scaled = ofKind<ScaledObject>(objects, 'ScaledObject');
  return ofKind<Deployment>(objects, 'Deployment').flatMap((deployment) => {
    const { name, namespace } = deployment.metadata;
    const owners = [
      ...hpas.filter(
        (h) => h.spec.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === name,
      ),
      ...scaled.filter(
        (s) =>
          (s.spec.scaleTargetRef.kind ?? 'Deployment') === 'Deployment' &&
          s.spec.scaleTargetRef.name === name,
      ),
    ].filter((owner) => owner.metadata.namespace === namespace);
    const problems = owners.length === 1 ? [] : [`${nameOf(deployment)}: ${owners.length} autoscalers`];
    if (deployment.spec.replicas !== undefined)
      problems.push(`${nameOf(deployment)}: sets replicas, which its autoscaler owns`);
    return problems;
  });
}

/** Each Deployment selects its own pods, and each Service's target port is a port of the pods it selects. */
export function checkSelectors(objects: readonly K8sObject[]): string[] {
  const deployments = ofKind<Deployment>(objects, 'Deployment');
  const problems = deployments
    .filter((d) => !selects(d.spec.selector.matchLabels, d.spec.template.metadata.labels))
    .map((d) => `${nameOf(d)}: its selector does not match its pod labels`);
  for (const service of ofKind<Service>(objects, 'Service')) {
    const backends = deployments.filter((d) =>
      selects(service.spec.selector, d.spec.template.metadata.labels),
    );
    if (backends.length === 0) problems.push(`${nameOf(service)}: selects no Deployment's pods`);
    for (const port of service.spec.ports)
      for (const backend of backends) {
        const target = port.targetPort ?? port.port;
        const ports = backend.spec.template.spec.containers.flatMap((c) => c.ports ?? []);
        if (!ports.some((p) => p.name === target || p.containerPort === target))
          problems.push(
            `${nameOf(service)}: port ${port.port} targets ${target}, not a port of ${nameOf(backend)}`,
          );
      }
  }
  return problems;
}

/**
 * Every HTTP probe targets the port the process listens on (PORT) and a route that answers 200
 * (`answer` asks the real api); the api has readiness and liveness probes, and its readiness probe
 * waits longer than a readiness check may take (READINESS_TIMEOUT_MS).
 */
export async function checkProbes(
  pods: readonly PodConfig[],
  answer: (path: string) => Promise<number>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const pod of pods) {
    const where = nameOf(pod.deployment);
    const { container, config } = pod;
    if (config === undefined) continue;
    if (
      processOf(pod) === 'api' &&
      (container.readinessProbe === undefined || container.livenessProbe === undefined)
    )
      problems.push(`${where}: the api needs a readiness and a liveness probe`);
    const probes: [string, Probe | undefined][] = [
      ['startup', container.startupProbe],
      ['readiness', container.readinessProbe],
      ['liveness', container.livenessProbe],
    ];
    for (const [kind, probe] of probes) {
      if (probe === undefined) continue;
      const http = probe.httpGet;
      if (http === undefined) {
        problems.push(`${where}: the ${kind} probe is not an HTTP probe`);
        continue;
      }
      if (!['0.0.0.0', '::'].includes(config.host))
        problems.push(`${where}: listens on ${config.host}, which the kubelet's ${kind} probe cannot reach`);
      const port = container.ports?.find((p) => p.name === http.port || p.containerPort === http.port);
      if (port?.containerPort !== config.port)
        problems.push(
          `${where}: the ${kind} probe's port ${http.port} is not the listening port ${config.port}`,
        );
      const status = await answer(http.path ?? '/');
      if (status !== 200) problems.push(`${where}: the ${kind} probe's ${http.path} answers ${status}`);
      if (kind === 'readiness' && (probe.timeoutSeconds ?? 1) * 1000 <= config.readinessTimeoutMs)
        problems.push(`${where}: the readiness probe gives up before READINESS_TIMEOUT_MS`);
    }
  }
  return problems;
}
