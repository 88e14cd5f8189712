import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../../src/cli/config.ts';
import {
  CONFIG_VARIABLES,
  DEFAULTS,
  durationMs,
  FILE_VARIABLES,
  imageProblem,
  read,
  SECRET_VARIABLES,
} from './deploy-files.ts';

/**
 * docker-compose.yml, deploy/compose/secrets.yml and deploy/compose/nginx.conf, read without a
 * Docker engine: the services and their order, every configuration variable passed through,
 * nothing published but the balancer, readiness as the health check, and the balancer's
 * settings against the receiver's.
 */

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  ports?: (string | { target: number; published?: string | number })[];
  container_name?: string;
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string | number | boolean | null>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  secrets?: string[];
  stop_grace_period?: string;
  profiles?: string[];
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file: string }>;
}

const COMPOSE_TEXT = read('docker-compose.yml');
const compose = parse(COMPOSE_TEXT, { merge: true }) as ComposeFile;
const secretsOverride = parse(read('deploy/compose/secrets.yml')) as ComposeFile;
const NGINX = read('deploy/compose/nginx.conf');
const DEPLOY_DOC = read('docs/deploy.md');

/** The value Compose would give `${VAR:-default}` with VAR unset. */
const withDefaults = (text: string) =>
  text.replace(
    /\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g,
    (_, _name, fallback?: string) => fallback ?? '',
  );

/** Services that run the receiver's image (the receiver itself, its migrations). */
const RECEIVER_SERVICES = ['migrate', 'receiver'];

/** Not passed, with the reason in docker-compose.yml. */
const NOT_PASSED = ['EMBEDDED_POSTGRES_DIR', 'EMBEDDED_POSTGRES_PORT'];

describe('docker-compose.yml', () => {
  const { services } = compose;

  it('runs Postgres, the migrations, the receivers and a balancer', () => {
    const always = Object.entries(services).filter(([, service]) => !service.profiles);
    expect(always.map(([name]) => name).sort()).toEqual(['balancer', 'db', 'migrate', 'receiver']);
    for (const [name, service] of Object.entries(services)) {
      const image = withDefaults(service.image ?? '');
      expect(imageProblem(image), name).toBeUndefined();
    }
  });

  it('runs the migrations once, to completion, before any receiver starts', () => {
    const { migrate, receiver } = services;
    expect(migrate!.command).toEqual(['node', 'dist/src/cli/main.js', 'migrate']);
    expect(migrate!.restart).toBe('no');
    expect(migrate!.depends_on?.db?.condition).toBe('service_healthy');
    expect(receiver!.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(receiver!.depends_on?.db?.condition).toBe('service_healthy');
    expect(withDefaults(String(receiver!.environment?.MIGRATE_ON_START))).toBe('false');
    expect(migrate!.image).toBe(receiver!.image);
  });

  it('offers the brokers a feed endpoint may publish into, on request, keeping what they are sent', () => {
    const brokers = Object.entries(services).filter(([, service]) => service.profiles);
    expect(brokers.map(([name]) => name).sort()).toEqual(['nats', 'rabbitmq']);
    for (const [name, service] of brokers) {
      expect(service.profiles, name).toEqual(['brokers']);
      expect(imageProblem(withDefaults(service.image ?? '')), name).toBeUndefined();
      expect(service.healthcheck, name).toBeDefined();
      // A named volume: a restarted broker still holds what it acknowledged.
      const volume = (service.volumes ?? [])[0]?.split(':')[0] ?? '';
      expect(Object.keys(compose.volumes ?? {}), name).toContain(volume);
    }
    // JetStream on, stored on that volume: without -js a publish has no stream to ack it.
    expect(services.nats!.command).toEqual(expect.arrayContaining(['-js', '-sd', '/data']));
  });

  it('scales the receiver: several replicas, no host port, no fixed container name', () => {
    const { receiver } = services;
    expect(receiver!.ports).toBeUndefined();
    expect(receiver!.container_name).toBeUndefined();
    expect(receiver!.deploy?.replicas).toBeGreaterThanOrEqual(2);
  });

  it("checks each receiver's readiness (/readyz), not mere liveness", () => {
    const test = services.receiver!.healthcheck!.test.join(' ');
    expect(test).toContain(`http://127.0.0.1:${DEFAULTS.port}/readyz`);
    expect(services.balancer!.healthcheck!.test.join(' ')).toContain('/readyz');
  });

  it('waits longer than the drain and the shutdown before killing a receiver', () => {
    const graceMs = durationMs(services.receiver!.stop_grace_period ?? '10s');
    expect(graceMs).toBeGreaterThan(
      DEFAULTS.server.shutdownDrainDelayMs + DEFAULTS.server.shutdownTimeoutMs,
    );
  });

  it('passes every configuration variable, and only those', () => {
    for (const name of RECEIVER_SERVICES) {
      const environment = services[name]!.environment ?? {};
      const names = Object.keys(environment);
      for (const variable of names) {
        expect([...CONFIG_VARIABLES, ...FILE_VARIABLES], `${name}: ${variable}`).toContain(
          variable,
        );
      }
      const missing = CONFIG_VARIABLES.filter((v) => !names.includes(v) && !NOT_PASSED.includes(v));
      expect(missing, name).toEqual([]);
    }
  });

  it('holds no secret value: secrets are passed through from the shell or .env only', () => {
    const environment = services.receiver!.environment ?? {};
    for (const secret of SECRET_VARIABLES.filter((s) => s !== 'DATABASE_URL')) {
      expect(environment[secret], secret).toBeNull();
    }
    // The database is Compose's own; its password comes from POSTGRES_PASSWORD.
    expect(String(environment.DATABASE_URL)).toContain('${POSTGRES_PASSWORD:-');
  });

  it('opens metrics and the feed on the private network, with values the receiver accepts', () => {
    const environment = services.receiver!.environment ?? {};
    const resolved = Object.fromEntries(
      Object.entries(environment)
        .filter(([, value]) => value !== null)
        .map(([key, value]) => [key, withDefaults(String(value))]),
    );
    const config = loadConfig({ ...resolved, ALLOW_NO_WEBHOOK_SECRET: 'true' });
    expect(config.metricsHost).toBe('0.0.0.0');
    expect(config.feed.host).toBe('0.0.0.0');
    expect(config.port).toBe(3000);
    expect(config.feed.port).toBe(3002);
    expect(config.providerEnv).toBe('sandbox');
    expect(config.trustProxy).not.toBe(false);
  });

  it('publishes only the balancer, on 3000, with the nginx configuration of deploy/compose', () => {
    const { balancer } = services;
    expect(balancer!.image).toMatch(/^nginx:1\.(2[89]|[3-9]\d)/);
    const ports = (balancer!.ports ?? []).map((p) => withDefaults(String(p)));
    expect(ports).toEqual(['3000:3000']);
    expect(balancer!.volumes).toContain('./deploy/compose/nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(balancer!.depends_on?.receiver).toBeDefined();
    for (const [name, service] of Object.entries(services)) {
      if (name !== 'balancer') expect(service.ports, name).toBeUndefined();
    }
  });

  it('documents every Compose-only setting it reads (${NAME}) in docs/deploy.md', () => {
    const names = new Set([...COMPOSE_TEXT.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]!));
    for (const name of names) {
      if (CONFIG_VARIABLES.includes(name)) continue;
      expect(DEPLOY_DOC, name).toContain(`\`${name}\``);
    }
  });

  it('names README and docs sections that exist', () => {
    const references = [...COMPOSE_TEXT.matchAll(/(README\.md|docs\/[\w.-]+\.md) \("([^"]+)"\)/g)];
    expect(references.length).toBeGreaterThan(0);
    for (const [, file, section] of references) {
      const headings = read(file!)
        .split('\n')
        .filter((line) => /^#{1,4} /.test(line))
        .map((line) => line.replace(/^#+ /, '').trim());
      expect(headings, `${file} ("${section}")`).toContain(section);
    }
  });
});

describe('deploy/compose/secrets.yml', () => {
  it('reads secrets from Compose secret files, as *_FILE', () => {
    const receiver = secretsOverride.services.receiver!;
    const environment = receiver.environment ?? {};
    expect(Object.keys(environment).length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(environment)) {
      expect(FILE_VARIABLES).toContain(name);
      expect(String(value)).toMatch(/^\/run\/secrets\/\w+$/);
      const secret = path.basename(String(value));
      expect(receiver.secrets).toContain(secret);
      expect(secretsOverride.secrets?.[secret]?.file).toMatch(/^\.\/\.data\/secrets\//);
    }
  });
});

describe('deploy/compose/nginx.conf', () => {
  const directive = (name: string, within = NGINX) =>
    [...within.matchAll(new RegExp(`^\\s*${name}\\s+([^;]+);`, 'gm'))].map((m) => m[1]!.trim());
  const block = (header: string) => {
    const start = NGINX.indexOf(header);
    expect(start, header).toBeGreaterThanOrEqual(0);
    return NGINX.slice(start, NGINX.indexOf('\n  }', start));
  };

  it('balances over every receiver replica, following Docker DNS', () => {
    const upstream = block('upstream receivers {');
    expect(directive('server', upstream)).toEqual([
      `receiver:${DEFAULTS.port} resolve max_fails=1 fail_timeout=5s`,
    ]);
    expect(directive('zone', upstream)).toHaveLength(1);
    expect(directive('resolver')).toEqual(['127.0.0.11 valid=5s ipv6=off']);
    const feed = block('upstream feed {');
    expect(directive('server', feed)[0]).toMatch(new RegExp(`^receiver:${DEFAULTS.feed.port} `));
  });

  it("closes idle upstream connections before the receivers' keep-alive does", () => {
    for (const header of ['upstream receivers {', 'upstream feed {']) {
      const [timeout] = directive('keepalive_timeout', block(header));
      expect(durationMs(timeout!)).toBeLessThan(DEFAULTS.server.keepAliveTimeoutMs);
    }
  });

  it("lets the receiver judge a body's size, and retries on another replica only when safe", () => {
    const [size] = directive('client_max_body_size');
    expect(size).toMatch(/^\d+m$/);
    expect(Number.parseInt(size!, 10) * 1024 * 1024).toBeGreaterThanOrEqual(
      DEFAULTS.bodyLimitBytes,
    );
    const [nextUpstream] = directive('proxy_next_upstream', block('location / {'));
    expect(nextUpstream!.split(/\s+/).sort()).toEqual(
      ['error', 'http_502', 'http_503', 'non_idempotent', 'timeout'].sort(),
    );
    expect(directive('proxy_set_header')).toContain('X-Forwarded-For $proxy_add_x_forwarded_for');
  });

  const nginx = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deploy-nginx-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // nginx here may predate `resolve` (1.27.3) and has no Docker DNS: those parts are left out.
  it.skipIf(nginx.status !== 0)('passes `nginx -t` (without the Docker-only parts)', () => {
    const local = NGINX.replace(/^user .*$/m, '')
      .replace(/^\s*resolver .*$/m, '')
      .replace(/ resolve /g, ' ')
      .replace(/server receiver:/g, 'server 127.0.0.1:')
      .replace(/\/var\/log\/nginx\//g, `${dir}/`)
      .replace(/\/var\/run\/nginx\.pid/, `${dir}/nginx.pid`)
      .replace(
        /^http \{$/m,
        `http {\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;`,
      );
    writeFileSync(path.join(dir, 'nginx.conf'), local);
    const result = spawnSync(
      'nginx',
      ['-t', '-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toContain('test is successful');
  });
});
