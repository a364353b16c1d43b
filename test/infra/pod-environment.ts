/**
 * The environment a container of a rendered Deployment would start with, resolved as the kubelet
 * does it (envFrom first, then `env` in order, each overriding; `$(VAR)` in a value expanded from
 * what is defined before it, `$$` an escaped `$`, an unknown reference left as written), and the
 * gateway configuration that environment loads.
 */
import { type Config, ConfigError, loadConfig } from '../../shared/src/config/config.ts';
import {
  type ConfigSource,
  type Container,
  type Deployment,
  type K8sObject,
  nameOf,
  ofKind,
} from './manifests.ts';

/** The ConfigMaps of the rendering and the Secrets (their templates: they are not rendered) by name. */
export interface EnvSources {
  readonly configMaps: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly secrets: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/** A Deployment's first container, its resolved environment and the configuration it loads. */
export interface PodConfig {
  readonly deployment: Deployment;
  readonly container: Container;
  readonly env: Readonly<Record<string, string>>;
  /** Undefined when the configuration does not load (the problem says why). */
  readonly config: Config | undefined;
}

/** The sources envFrom and valueFrom may name: the rendering's ConfigMaps, the given Secrets. */
export function envSources(
  rendered: readonly K8sObject[],
  secretTemplates: readonly K8sObject[],
): EnvSources {
  const values = (source: ConfigSource): Record<string, string> => ({
    ...Object.fromEntries(
      Object.entries(source.data ?? {}).map(([key, value]) =>
        source.kind === 'Secret' ? [key, Buffer.from(value, 'base64').toString('utf8')] : [key, value],
      ),
    ),
    ...(source.stringData ?? {}),
  });
  const byName = (objects: ConfigSource[]) => new Map(objects.map((o) => [o.metadata.name, values(o)]));
  return {
    configMaps: byName(ofKind<ConfigSource>(rendered, 'ConfigMap')),
    secrets: byName(ofKind<ConfigSource>(secretTemplates, 'Secret')),
  };
}

/** The environment of `container`, and what could not be resolved. */
export function containerEnvironment(
  container: Container,
  sources: EnvSources,
): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  const lookUp = (kind: 'ConfigMap' | 'Secret', name: string) =>
    (kind === 'ConfigMap' ? sources.configMaps : sources.secrets).get(name);
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (ref === undefined) continue;
    const kind = from.configMapRef === undefined ? 'Secret' : 'ConfigMap';
    const values = lookUp(kind, ref.name);
    if (values === undefined) {
      if (ref.optional !== true)
        problems.push(`container ${container.name}: envFrom names no ${kind} ${ref.name}`);
      continue;
    }
    for (const [key, value] of Object.entries(values)) env[`${from.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    if (variable.valueFrom === undefined) {
      env[variable.name] = expand(variable.value ?? '', env);
      continue;
    }
    const { configMapKeyRef, secretKeyRef } = variable.valueFrom;
    const ref = configMapKeyRef ?? secretKeyRef;
    const kind = configMapKeyRef === undefined ? 'Secret' : 'ConfigMap';
    const value = ref === undefined ? undefined : lookUp(kind, ref.name)?.[ref.key];
    if (value !== undefined) env[variable.name] = value;
    else if (ref?.optional !== true)
      problems.push(`container ${container.name}: ${variable.name} refers to a missing ${kind} key`);
  }
  return { env, problems };
}

/** Kubernetes' `$(VAR)` expansion of an env value. */
export function expand(value: string, defined: Readonly<Record<string, string>>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) =>
    name === undefined ? '$' : (defined[name] ?? match),
  );
}

/**
 * The variables the configuration module refuses to start without, read from its own answer to an
 * empty environment (so a variable it comes to require is checked without editing this list).
 */
export function requiredVariables(): string[] {
  try {
    loadConfig({});
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.flatMap(
      (problem) => /^(\w+) is required(?: \(or [^)]*\))?$/.exec(problem)?.[1] ?? [],
    );
  }
}

/** Every Deployment's first container with its environment and configuration, and the problems met. */
export function podConfigs(
  rendered: readonly K8sObject[],
  sources: EnvSources,
): { pods: PodConfig[]; problems: string[] } {
  const required = requiredVariables();
  const problems: string[] = [];
  const pods = ofKind<Deployment>(rendered, 'Deployment').map((deployment) => {
    const [container, ...others] = deployment.spec.template.spec.containers;
    if (container === undefined || others.length > 0)
      throw new Error(`${nameOf(deployment)}: the gateway's pods have exactly one container`);
    const resolved = containerEnvironment(container, sources);
    const where = nameOf(deployment);
    problems.push(...resolved.problems.map((problem) => `${where}: ${problem}`));
    for (const name of required)
      if (!resolved.env[name])
        problems.push(`${where}: ${name} (required by the configuration) is not provided`);
    let config: Config | undefined;
    try {
      config = loadConfig(resolved.env);
    } catch (err) {
      problems.push(`${where}: the configuration does not load: ${err instanceof Error ? err.message : err}`);
    }
    // Replicas on several nodes share one durable store: SQLite is a file of one host.
    if (config !== undefined && config.store.kind !== 'mongodb')
      problems.push(`${where}: the store is ${config.store.kind}; replicas need MongoDB (MONGO_URL)`);
    return { deployment, container, env: resolved.env, config };
  });
  return { pods, problems };
}
