import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * The part of kustomize that deploy/k8s uses, to render an overlay in a test without the
 * kustomize binary: `resources` (files and folders with a kustomization.yaml), `namespace`,
 * `images`, `replicas` and `patches` holding JSON 6902 operations with a kind/name target.
 * Any other field of a kustomization is refused, so the manifests cannot start depending on
 * something this renderer would silently skip. When kubectl is installed, the test also
 * compares this rendering with `kubectl kustomize`.
 */

export type Resource = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
};

const SUPPORTED_FIELDS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'namespace',
  'images',
  'replicas',
  'patches',
]);

/** Kinds deploy/k8s may hold; all are namespaced. */
const NAMESPACED_KINDS = new Set([
  'ConfigMap',
  'Deployment',
  'Ingress',
  'Job',
  'NetworkPolicy',
  'PodDisruptionBudget',
  'Secret',
  'Service',
  'ServiceAccount',
]);

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  replicas?: { name: string; count: number }[];
  patches?: { target?: { kind?: string; name?: string }; patch?: string; path?: string }[];
}

export function parseYamlDocuments(text: string, where: string): unknown[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) {
      throw new Error(`${where}: ${document.errors.map((e) => e.message).join('; ')}`);
    }
    const value: unknown = document.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

/** The kustomization's own fields, checked before rendering. */
export function readKustomization(dir: string): Kustomization {
  const file = path.join(dir, 'kustomization.yaml');
  const [document] = parseYamlDocuments(readFileSync(file, 'utf8'), file);
  const kustomization = document as Kustomization;
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED_FIELDS.has(key));
  if (unsupported.length > 0) {
    throw new Error(`${file}: fields this renderer does not implement: ${unsupported.join(', ')}`);
  }
  if (kustomization.apiVersion !== 'kustomize.config.k8s.io/v1beta1') {
    throw new Error(`${file}: apiVersion must be kustomize.config.k8s.io/v1beta1`);
  }
  if (kustomization.kind !== 'Kustomization')
    throw new Error(`${file}: kind must be Kustomization`);
  return kustomization;
}

export function render(dir: string): Resource[] {
  const kustomization = readKustomization(dir);
  let resources: Resource[] = [];
  for (const entry of kustomization.resources ?? []) {
    const target = path.resolve(dir, entry);
    if (!existsSync(target)) throw new Error(`${dir}: resource ${entry} does not exist`);
    if (statSync(target).isDirectory()) {
      resources.push(...render(target));
    } else {
      resources.push(...readResources(target));
    }
  }
  for (const patch of kustomization.patches ?? []) resources = applyPatch(resources, patch, dir);
  for (const image of kustomization.images ?? []) setImage(resources, image);
  for (const replicas of kustomization.replicas ?? []) setReplicas(resources, replicas);
  if (kustomization.namespace) {
    for (const resource of resources) {
      if (!NAMESPACED_KINDS.has(resource.kind)) {
        throw new Error(`${resource.kind}: not known to be namespaced`);
      }
      resource.metadata.namespace = kustomization.namespace;
    }
  }
  const ids = resources.map(idOf);
  const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
  if (repeated.length > 0)
    throw new Error(`${dir}: resources defined twice: ${repeated.join(', ')}`);
  return resources;
}

export const idOf = (r: Resource): string =>
  `${r.kind}/${r.metadata.namespace ?? ''}/${r.metadata.name}`;

function readResources(file: string): Resource[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), file).map((document) => {
    const resource = document as Resource;
    if (!resource.apiVersion || !resource.kind || !resource.metadata?.name) {
      throw new Error(`${file}: a resource needs apiVersion, kind and metadata.name`);
    }
    return resource;
  });
}

function applyPatch(
  resources: Resource[],
  patch: NonNullable<Kustomization['patches']>[number],
  dir: string,
): Resource[] {
  if (patch.path !== undefined || patch.patch === undefined) {
    throw new Error(`${dir}: only inline JSON 6902 patches (patch: |-) are implemented`);
  }
  const [operations] = parseYamlDocuments(patch.patch, `${dir} patch`);
  if (!Array.isArray(operations)) {
    throw new Error(`${dir}: only JSON 6902 patches (a list of operations) are implemented`);
  }
  const matching = resources.filter(
    (r) =>
      (patch.target?.kind === undefined || r.kind === patch.target.kind) &&
      (patch.target?.name === undefined || r.metadata.name === patch.target.name),
  );
  if (matching.length === 0) throw new Error(`${dir}: a patch's target matches no resource`);
  for (const resource of matching) {
    for (const operation of operations as { op: string; path: string; value?: unknown }[]) {
      applyOperation(resource, operation);
    }
  }
  return resources;
}

/** RFC 6902 add, replace and remove, with RFC 6901 pointers. */
function applyOperation(
  document: Resource,
  operation: { op: string; path: string; value?: unknown },
): void {
  const tokens = operation.path
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = tokens.pop();
  if (last === undefined) throw new Error(`patch path ${operation.path}: empty`);
  let parent: unknown = document;
  for (const token of tokens) {
    parent = Array.isArray(parent)
      ? parent[Number(token)]
      : (parent as Record<string, unknown> | undefined)?.[token];
    if (parent === undefined || parent === null) {
      throw new Error(`patch path ${operation.path}: ${token} does not exist`);
    }
  }
  const value = structuredClone(operation.value);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) {
      throw new Error(`patch path ${operation.path}: bad index`);
    }
    if (operation.op === 'add') parent.splice(index, 0, value);
    else if (operation.op === 'replace' && index < parent.length) parent[index] = value;
    else if (operation.op === 'remove' && index < parent.length) parent.splice(index, 1);
    else throw new Error(`patch ${operation.op} ${operation.path}: not applicable`);
    return;
  }
  const object = parent as Record<string, unknown>;
  if (operation.op === 'add') object[last] = value;
  else if (operation.op === 'replace' && last in object) object[last] = value;
  else if (operation.op === 'remove' && last in object) delete object[last];
  else throw new Error(`patch ${operation.op} ${operation.path}: not applicable`);
}

function podSpecOf(resource: Resource): Record<string, unknown> | undefined {
  const spec = resource.spec as { template?: { spec?: Record<string, unknown> } } | undefined;
  return spec?.template?.spec;
}

function setImage(
  resources: Resource[],
  image: NonNullable<Kustomization['images']>[number],
): void {
  for (const resource of resources) {
    const pod = podSpecOf(resource);
    for (const key of ['containers', 'initContainers']) {
      for (const container of (pod?.[key] as { image?: string }[] | undefined) ?? []) {
        if (!container.image) continue;
        const [name] = container.image.split('@')[0]!.split(/:(?=[^/:]+$)/);
        if (name !== image.name) continue;
        const tag = image.digest
          ? `@${image.digest}`
          : `:${image.newTag ?? container.image.split(/:(?=[^/:]+$)/)[1] ?? 'latest'}`;
        container.image = `${image.newName ?? name}${tag}`;
      }
    }
  }
}

function setReplicas(
  resources: Resource[],
  replicas: NonNullable<Kustomization['replicas']>[number],
): void {
  const targets = resources.filter(
    (r) =>
      ['Deployment', 'StatefulSet', 'ReplicaSet'].includes(r.kind) &&
      r.metadata.name === replicas.name,
  );
  if (targets.length === 0) throw new Error(`replicas: no workload named ${replicas.name}`);
  for (const target of targets) (target.spec as { replicas?: number }).replicas = replicas.count;
}
