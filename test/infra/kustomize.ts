/**
 * Renders a kustomization of infra/k8s twice over: with `kubectl kustomize` when kubectl is on the
 * PATH, and with a small renderer of its own for machines without it. The renderer knows exactly
 * the fields infra/k8s uses (`resources`, `namespace`, `images`, JSON 6902 `patches`) and refuses
 * any other, so it can never silently render something kubectl would render differently.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { findExecutable } from '../../infra/local-stack/find-executable.ts';
import type { K8sObject } from './manifests.ts';

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: ImageOverride[];
  patches?: { target: PatchTarget; patch: string }[];
}

interface ImageOverride {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
}

interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);
const PATCH_OPERATIONS = new Set(['add', 'replace', 'remove']);
/** Kinds without a namespace among those a kustomization here could hold. */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
]);

/** The objects of a YAML file of one or more documents. */
export function readObjects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

/** `kubectl kustomize <dir>`, or undefined when kubectl is not on the PATH. */
export function renderWithKubectl(dir: string): K8sObject[] | undefined {
  const kubectl = findExecutable('kubectl', process.env.PATH);
  if (kubectl === undefined) return undefined;
  const output = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', timeout: 30_000 });
  return parseAllDocuments(output)
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
}

/** What `kubectl kustomize <dir>` renders, for the fields listed above, without kubectl. */
export function renderKustomization(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8')) as Kustomization;
  const unknown = Object.keys(kustomization).filter((field) => !KNOWN_FIELDS.has(field));
  if (unknown.length > 0)
    throw new Error(`${file}: fields this renderer does not know: ${unknown.join(', ')}`);
  let objects = (kustomization.resources ?? []).flatMap((resource) => {
    const path = join(dir, resource);
    return statSync(path).isDirectory() ? renderKustomization(path) : readObjects(path);
  });
  for (const { target, patch } of kustomization.patches ?? []) {
    const operations = parse(patch) as PatchOperation[];
    if (!Array.isArray(operations)) throw new Error(`${file}: only JSON 6902 patches (a list of operations)`);
    const matched = objects.filter((object) => targets(target, object));
    if (matched.length === 0) throw new Error(`${file}: a patch matches nothing: ${JSON.stringify(target)}`);
    objects = objects.map((object) => (matched.includes(object) ? applyPatch(object, operations) : object));
  }
  for (const override of kustomization.images ?? []) objects = objects.map((o) => withImage(o, override));
  const { namespace } = kustomization;
  if (namespace !== undefined)
    objects = objects.map((object) =>
      CLUSTER_SCOPED.has(object.kind) ? object : { ...object, metadata: { ...object.metadata, namespace } },
    );
  return objects;
}

function targets(target: PatchTarget, object: K8sObject): boolean {
  const [group, version] = object.apiVersion.includes('/')
    ? object.apiVersion.split('/')
    : ['', object.apiVersion];
  return (
    (target.kind === undefined || target.kind === object.kind) &&
    (target.name === undefined || target.name === object.metadata.name) &&
    (target.group === undefined || target.group === group) &&
    (target.version === undefined || target.version === version)
  );
}

/** RFC 6902 `add`, `replace` and `remove` on a copy of `object`. */
export function applyPatch(object: K8sObject, operations: readonly PatchOperation[]): K8sObject {
  const copy = structuredClone(object);
  for (const { op, path, value } of operations) {
    if (!PATCH_OPERATIONS.has(op)) throw new Error(`patch operation ${op} is not supported`);
    const keys = path
      .split('/')
      .slice(1)
      .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = keys.pop();
    if (last === undefined) throw new Error(`patch path ${path} names no field`);
    let parent: unknown = copy;
    for (const key of keys) parent = (parent as Record<string, unknown> | undefined)?.[key];
    if (parent === null || typeof parent !== 'object') throw new Error(`patch path ${path} does not exist`);
    const container = parent as Record<string, unknown>;
    if (op !== 'add' && !(last in container)) throw new Error(`patch path ${path} does not exist`);
    if (Array.isArray(container)) {
      const index = last === '-' ? container.length : Number(last);
      container.splice(index, op === 'add' ? 0 : 1, ...(op === 'remove' ? [] : [value]));
    } else if (op === 'remove') delete container[last];
    else container[last] = value;
  }
  return copy;
}

/** Kustomize's `images` transformer on the containers of a workload's pod template. */
function withImage(object: K8sObject, override: ImageOverride): K8sObject {
  const pod = (object.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec;
  if (pod === undefined) return object;
  const copy = structuredClone(object);
  const podCopy = (copy.spec as { template: { spec: Record<string, { image: string }[] | undefined> } })
    .template.spec;
  for (const field of ['containers', 'initContainers']) {
    for (const container of podCopy[field] ?? []) {
      const image = splitImage(container.image);
      if (image.name !== override.name) continue;
      const name = override.newName ?? image.name;
      const reference =
        override.digest !== undefined
          ? `@${override.digest}`
          : override.newTag !== undefined
            ? `:${override.newTag}`
            : image.reference;
      container.image = `${name}${reference}`;
    }
  }
  return copy;
}

/** `registry/name:tag` or `name@sha256:…` into the name and what follows it (`:tag`, `@digest` or ''). */
export function splitImage(image: string): { name: string; reference: string } {
  const at = image.indexOf('@');
  if (at >= 0) return { name: image.slice(0, at), reference: image.slice(at) };
  const colon = image.lastIndexOf(':');
  if (colon > image.lastIndexOf('/')) return { name: image.slice(0, colon), reference: image.slice(colon) };
  return { name: image, reference: '' };
}
