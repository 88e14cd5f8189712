import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import {
  CONFIG_VARIABLES,
  DEFAULTS,
  FILE_VARIABLES,
  imageProblem,
  ROOT,
  SECRET_VARIABLES,
} from './deploy-files.ts';
import { idOf, parseYamlDocuments, readKustomization, render, type Resource } from './kustomize.ts';
import { schemaProblems, unknownFieldProblems } from './kubernetes-schema.ts';

/**
 * deploy/k8s: the base and every overlay, rendered as kustomize would, each resource validated
 * against the Kubernetes schemas, and the receiver's own rules checked (probes, drain, secrets,
 * images, network policy).
 */

const K8S = path.join(ROOT, 'deploy/k8s');
const OVERLAYS = readdirSync(path.join(K8S, 'overlays')).map((name) => `overlays/${name}`);
const KUSTOMIZATIONS = ['base', ...OVERLAYS];

/** The checks below the schema need typed access to a few paths. */
interface Probe {
  httpGet?: { path?: string; port?: string | number };
}
interface Container {
  name: string;
  image?: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds: number } } };
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: Record<string, unknown>;
  terminationGracePeriodSeconds?: number;
  automountServiceAccountToken?: boolean;
  restartPolicy?: string;
  volumes?: { name: string; secret?: { secretName: string } }[];
}
interface Workload {
  spec: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

const rendered = new Map(KUSTOMIZATIONS.map((k) => [k, render(path.join(K8S, k))]));

function one(resources: Resource[], kind: string, name?: string): Resource {
  const found = resources.filter((r) => r.kind === kind && (!name || r.metadata.name === name));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
}

const podSpec = (r: Resource) => (r as unknown as Workload).spec.template.spec;
const podLabels = (r: Resource) => (r as unknown as Workload).spec.template.metadata.labels;
const configData = (resources: Resource[]) =>
  (one(resources, 'ConfigMap') as unknown as { data: Record<string, string> }).data;

const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const hasKubectl = kubectl.status === 0;

describe.each(KUSTOMIZATIONS)('deploy/k8s/%s', (name) => {
  const resources = rendered.get(name)!;

  it('renders to the resources a receiver needs', () => {
    const kinds = resources.map((r) => r.kind).sort();
    for (const kind of [
      'ConfigMap',
      'Deployment',
      'Job',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Service',
    ]) {
      expect(kinds).toContain(kind);
    }
    if (name !== 'base') {
      for (const resource of resources) expect(resource.metadata.namespace).toBeTruthy();
    }
  });

  it('validates against the Kubernetes schemas', () => {
    expect(schemaProblems(resources)).toEqual([]);
  });

  it('has no field the Kubernetes API does not know (misspelt or misplaced)', () => {
    expect(unknownFieldProblems(resources)).toEqual([]);
  }, 60_000);

  it.skipIf(!hasKubectl)(
    'renders as `kubectl kustomize` does',
    () => {
      const result = spawnSync('kubectl', ['kustomize', path.join(K8S, name)], {
        encoding: 'utf8',
      });
      expect(result.stderr).toBe('');
      const theirs = parseYamlDocuments(result.stdout, 'kubectl kustomize') as Resource[];
      const byId = (list: Resource[]) =>
        Object.fromEntries(
          list.map((r) => [idOf(r), r] as const).sort(([a], [b]) => a.localeCompare(b)),
        );
      expect(byId(resources)).toEqual(byId(theirs));
    },
    60_000,
  );

  it('runs replicated receivers probed on /readyz (readiness) and /healthz (liveness)', () => {
    const deployment = one(resources, 'Deployment');
    expect((deployment as unknown as Workload).spec.replicas).toBeGreaterThanOrEqual(2);
    const [receiver] = podSpec(deployment).containers;
    const http = receiver!.ports?.find((p) => p.name === 'http');
    expect(http?.containerPort).toBe(DEFAULTS.port);
    expect(receiver!.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(receiver!.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    // A startup probe, if any, is liveness-like: never the readiness check (it would restart
    // every pod while the database or the key endpoint is down).
    if (receiver!.startupProbe) expect(receiver!.startupProbe.httpGet?.path).toBe('/healthz');
  });

  it('drains before SIGTERM and gives the shutdown time to finish before SIGKILL', () => {
    const deployment = one(resources, 'Deployment');
    const spec = podSpec(deployment);
    const preStop = spec.containers[0]!.lifecycle?.preStop;
    const preStopSeconds =
      preStop?.sleep?.seconds ??
      (preStop?.exec?.command?.[0] === 'sleep' ? Number(preStop.exec.command[1]) : NaN);
    expect(preStopSeconds).toBeGreaterThanOrEqual(5);
    const config = configData(resources);
    const drainMs = Number(config.SHUTDOWN_DRAIN_DELAY_MS ?? DEFAULTS.server.shutdownDrainDelayMs);
    const shutdownMs = Number(config.SHUTDOWN_TIMEOUT_MS ?? DEFAULTS.server.shutdownTimeoutMs);
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThan(
      preStopSeconds + (drainMs + shutdownMs) / 1000,
    );
  });

  it('runs every pod as a non-root user, read-only, without privileges or an API token', () => {
    for (const workload of resources.filter((r) => ['Deployment', 'Job'].includes(r.kind))) {
      const spec = podSpec(workload);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(spec.securityContext?.runAsUser).toBeGreaterThan(0);
      expect(spec.automountServiceAccountToken).toBe(false);
      for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
        expect(container.securityContext, container.name).toMatchObject({
          runAsNonRoot: true,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(container.resources?.requests?.memory, container.name).toBeDefined();
        expect(container.resources?.limits?.memory, container.name).toBeDefined();
        expect(imageProblem(container.image ?? ''), container.name).toBeUndefined();
      }
    }
  });

  it('runs the migrations as a Job with the same image, before receivers that do not migrate', () => {
    const job = one(resources, 'Job');
    const spec = podSpec(job);
    expect(spec.restartPolicy).toBe('Never');
    expect(spec.containers[0]!.command).toEqual(['node', 'dist/src/cli/main.js', 'migrate']);
    expect(spec.containers[0]!.image).toBe(
      podSpec(one(resources, 'Deployment')).containers[0]!.image,
    );
    expect(configData(resources).MIGRATE_ON_START).toBe('false');
  });

  it('holds no secret value: secrets come from a Secret by reference, as *_FILE', () => {
    expect(resources.filter((r) => r.kind === 'Secret')).toEqual([]);
    const config = configData(resources);
    for (const key of Object.keys(config)) expect(SECRET_VARIABLES).not.toContain(key);
    for (const workload of resources.filter((r) => ['Deployment', 'Job'].includes(r.kind))) {
      const spec = podSpec(workload);
      const secretMounts = new Set((spec.volumes ?? []).filter((v) => v.secret).map((v) => v.name));
      for (const container of spec.containers) {
        const mountPaths = (container.volumeMounts ?? [])
          .filter((m) => secretMounts.has(m.name))
          .map((m) => m.mountPath);
        for (const env of container.env ?? []) {
          expect(SECRET_VARIABLES, env.name).not.toContain(env.name);
          expect([...CONFIG_VARIABLES, ...FILE_VARIABLES], env.name).toContain(env.name);
          if (FILE_VARIABLES.includes(env.name)) {
            expect(
              mountPaths.some((mount) => env.value?.startsWith(`${mount}/`)),
              `${env.name} is a file of a mounted Secret`,
            ).toBe(true);
          }
        }
        expect(container.envFrom?.filter((e) => e.secretRef) ?? []).toEqual([]);
      }
    }
    const deployment = podSpec(one(resources, 'Deployment')).containers[0]!;
    const envNames = (deployment.env ?? []).map((e) => e.name);
    expect(envNames).toContain('WEBHOOK_SECRETS_FILE');
    expect(envNames).toContain('DATABASE_URL_FILE');
  });

  it('sets only variables the receiver knows, with values it accepts', () => {
    const config = configData(resources);
    for (const key of Object.keys(config)) expect(CONFIG_VARIABLES).toContain(key);
    // Stand-ins for the secrets, which are files in the pod.
    const loaded = loadConfig(
      { ...config, WEBHOOK_SECRETS: 'Basic x', DATABASE_URL: 'postgres://u@db/receiver' },
      { readFile: () => '' },
    );
    expect(loaded.metricsHost).toBe('0.0.0.0');
    expect(loaded.migrateOnStart).toBe(false);
    expect(loaded.trustProxy).not.toBe(false);
  });

  it('selects the receivers with its Service, PodDisruptionBudget and NetworkPolicy', () => {
    const deployment = one(resources, 'Deployment');
    const labels = podLabels(deployment);
    const workload = deployment as unknown as Workload;
    expect(matches(workload.spec.selector!.matchLabels, labels)).toBe(true);
    const service = one(resources, 'Service') as unknown as {
      spec: { selector: Record<string, string>; ports: { name: string; targetPort: string }[] };
    };
    expect(matches(service.spec.selector, labels)).toBe(true);
    const jobLabels = podLabels(one(resources, 'Job'));
    expect(matches(service.spec.selector, jobLabels)).toBe(false);
    const portNames = (podSpec(deployment).containers[0]!.ports ?? []).map((p) => p.name);
    for (const port of service.spec.ports) expect(portNames).toContain(port.targetPort);
    const pdb = one(resources, 'PodDisruptionBudget') as unknown as {
      spec: { selector: { matchLabels: Record<string, string> } };
    };
    expect(matches(pdb.spec.selector.matchLabels, labels)).toBe(true);
    const policy = one(resources, 'NetworkPolicy') as unknown as {
      spec: { podSelector: { matchLabels: Record<string, string> } };
    };
    expect(matches(policy.spec.podSelector.matchLabels, labels)).toBe(true);
    expect(matches(policy.spec.podSelector.matchLabels, jobLabels)).toBe(true);
  });

  it('admits deliveries, metrics and the feed on their own ports only, and egress to what the receiver calls', () => {
    type Peer = { namespaceSelector?: unknown; podSelector?: unknown; ipBlock?: unknown };
    type Rule = { from?: Peer[]; to?: Peer[]; ports?: { port: number; protocol?: string }[] };
    const policy = one(resources, 'NetworkPolicy') as unknown as {
      spec: { policyTypes: string[]; ingress: Rule[]; egress: Rule[] };
    };
    expect(policy.spec.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    const ingressPorts = policy.spec.ingress.map((rule) => rule.ports?.map((p) => p.port) ?? []);
    // Every ingress rule names its peers and its ports: nothing is open to all.
    for (const rule of policy.spec.ingress) {
      expect(rule.from?.length).toBeGreaterThan(0);
      expect(rule.ports?.length).toBeGreaterThan(0);
    }
    expect(ingressPorts).toContainEqual([DEFAULTS.port]);
    expect(ingressPorts).toContainEqual([DEFAULTS.metricsPort]);
    const egressPorts = policy.spec.egress.flatMap((rule) => rule.ports?.map((p) => p.port) ?? []);
    for (const port of [53, 5432, 443]) expect(egressPorts).toContain(port);
  });

  it('publishes only /webhooks/ over TLS when it has an Ingress', () => {
    const ingresses = resources.filter((r) => r.kind === 'Ingress') as unknown as {
      spec: {
        tls?: { secretName?: string }[];
        rules: {
          http: {
            paths: {
              path: string;
              backend: { service: { name: string; port: { name?: string } } };
            }[];
          };
        }[];
      };
    }[];
    const service = one(resources, 'Service');
    for (const ingress of ingresses) {
      expect(ingress.spec.tls?.[0]?.secretName).toBeTruthy();
      for (const rule of ingress.spec.rules) {
        for (const p of rule.http.paths) {
          expect(p.path).toBe('/webhooks/');
          expect(p.backend.service.name).toBe(service.metadata.name);
          expect(p.backend.service.port.name).toBe('http');
        }
      }
    }
  });
});

describe('deploy/k8s kustomizations', () => {
  it('list every manifest file of their folder (none forgotten)', () => {
    for (const name of KUSTOMIZATIONS) {
      const dir = path.join(K8S, name);
      const listed = new Set(readKustomization(dir).resources ?? []);
      const files = readdirSync(dir).filter(
        (f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml',
      );
      for (const file of files) expect(listed, `${name}/${file}`).toContain(file);
    }
  });
});
