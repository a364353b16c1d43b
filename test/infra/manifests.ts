/**
 * The parts of Kubernetes objects the manifests test reads (infra/k8s), typed loosely: what a
 * rendering holds is checked, not assumed.
 */
export interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
  [field: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}

export interface Probe {
  httpGet?: { path?: string; port: number | string };
  timeoutSeconds?: number;
  periodSeconds?: number;
  failureThreshold?: number;
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  envFrom?: EnvFromSource[];
  env?: EnvVar[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds: number } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

export interface PodSpec {
  terminationGracePeriodSeconds?: number;
  containers: Container[];
  initContainers?: Container[];
}

export interface Deployment extends K8sObject {
  spec: {
    replicas?: number;
    selector: { matchLabels?: Record<string, string> };
    template: { metadata: { labels?: Record<string, string> }; spec: PodSpec };
  };
}

export interface Service extends K8sObject {
  spec: {
    selector?: Record<string, string>;
    ports: { name?: string; port: number; targetPort?: number | string }[];
  };
}

export interface HorizontalPodAutoscaler extends K8sObject {
  spec: {
    scaleTargetRef: { apiVersion?: string; kind: string; name: string };
    minReplicas?: number;
    maxReplicas: number;
    metrics?: { type: string; resource?: { name: string } }[];
  };
}

export interface RedisTrigger {
  type: string;
  name?: string;
  metadata: Record<string, string>;
}

export interface ScaledObject extends K8sObject {
  spec: {
    scaleTargetRef: { kind?: string; name: string };
    minReplicaCount?: number;
    maxReplicaCount?: number;
    triggers: RedisTrigger[];
  };
}

export interface PodDisruptionBudget extends K8sObject {
  spec: {
    selector: { matchLabels?: Record<string, string> };
    minAvailable?: number | string;
    maxUnavailable?: number | string;
  };
}

export interface ConfigSource extends K8sObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** The objects of one kind. */
export function ofKind<T extends K8sObject>(objects: readonly K8sObject[], kind: string): T[] {
  return objects.filter((object): object is T => object.kind === kind);
}

/** Whether every label of `selector` is on `labels` (an empty selector matches nothing here). */
export function selects(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([key, value]) => labels?.[key] === value);
}

/** `kind/name`, how problems name an object. */
export function nameOf(object: K8sObject): string {
  return `${object.kind}/${object.metadata.name}`;
}
