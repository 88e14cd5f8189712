import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../tools/common/free-port.ts';
import { createSandboxKeys, type SandboxKeys } from '../../../tools/sandbox/core/keys.ts';
import { createSandbox, type Sandbox } from '../../../tools/sandbox/sandbox.ts';
import { bodyBytes, freshWebhookId } from '../../support/deliveries.ts';
import { newWebhookSecret, startConsumer } from '../../support/feed-consumer.ts';
import {
  exitWithin,
  PROJECT_DIR,
  runMain,
  waitFor,
  type RunningProcess,
} from '../../support/receiver-process.ts';
import { nppPayment } from '../../support/sample-bodies.ts';
import { signBody } from '../../support/signing.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The alert rules (deploy/prometheus/alerts.yml), the Grafana dashboard
 * (deploy/grafana/receiver-dashboard.json) and the README's "Alert on" prose name metrics: every
 * one of them must be served by a real receiver's /metrics. The receiver is `src/cli/main.ts serve` in its
 * own process with everything that registers metrics switched on: the fetched signing key (from
 * a sandbox), the feed relay (to a local consumer) and scheduled recovery (against the sandbox).
 * Labelled counters appear only at their first increment, so the test provokes them: a stored
 * delivery and a conflict.
 */

const RULES_FILE = path.join(PROJECT_DIR, 'deploy/prometheus/alerts.yml');
const RULES_TEST_FILE = path.join(PROJECT_DIR, 'deploy/prometheus/alerts.test.yml');
const DASHBOARD_FILE = path.join(PROJECT_DIR, 'deploy/grafana/receiver-dashboard.json');
const SECRET = 'Basic b2JzZXJ2YWJpbGl0eS10ZXN0';
const CREDENTIALS = { mAccount: '6279059700000001', apiKey: 'observability-test-api-key' };

// --- reading PromQL, rules, dashboard and prose -------------------------------------------------

const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'atan2',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads, roughly: strings, label matchers, ranges and
 * grouping label lists are removed, then every identifier not called as a function and not a
 * keyword is a metric name. Grafana's `$variables` are not names.
 */
function metricNamesIn(expr: string): Set<string> {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w.$:])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)) {
    const name = match[1] as string;
    if (/^[a-z_][a-z0-9_]*$/.test(name) && !PROMQL_KEYWORDS.has(name)) names.add(name);
  }
  return names;
}

interface Rule {
  alert: string;
  expr: string;
  runbookUrl: string | undefined;
}

/** The rules of alerts.yml, read line by line (its own layout: `expr: |` blocks or one line). */
function readRules(text: string): Rule[] {
  const rules: Rule[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const alert = /^\s*- alert:\s*(\S+)/.exec(line);
    if (alert) {
      rules.push({ alert: alert[1] as string, expr: '', runbookUrl: undefined });
      continue;
    }
    const rule = rules.at(-1);
    if (!rule) continue;
    const expr = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (expr) {
      const indent = (expr[1] as string).length;
      const value = (expr[2] as string).trim();
      if (!/^[|>][+-]?$/.test(value)) {
        rule.expr = value.replace(/^(['"])(.*)\1$/, '$2');
        continue;
      }
      const block: string[] = [];
      while (i + 1 < lines.length) {
        const next = lines[i + 1] as string;
        if (next.trim() !== '' && next.length - next.trimStart().length <= indent) break;
        block.push(next);
        i += 1;
      }
      rule.expr = block.join('\n').trim();
      continue;
    }
    const runbook = /^\s*runbook_url:\s*(\S+)/.exec(line);
    if (runbook) rule.runbookUrl = (runbook[1] as string).replace(/^(['"])(.*)\1$/, '$2');
  }
  return rules;
}

/** Every `expr` of the dashboard's targets, and the metric of each `label_values(...)` variable. */
function dashboardExpressions(dashboard: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'expr' && typeof value === 'string') found.push(value);
        else if (key === 'query' && typeof value === 'string') {
          const labelValues = /^label_values\((.*),\s*\w+\)$/.exec(value.trim());
          if (labelValues) found.push(labelValues[1] as string);
        } else walk(value);
      }
    }
  };
  walk(dashboard);
  return found;
}

/**
 * Paragraphs of markdown prose that name metrics: from each "Alert on" (or a "**Metrics**",
 * "**Recovery metrics**" or "Gauges:" lead) to the end of its list item or paragraph.
 */
function metricProse(markdown: string): string[] {
  const lines = markdown.split('\n');
  const passages: string[] = [];
  const lead = /\*\*Alert on\*\*|\*\*(?:Recovery )?[Mm]etrics\*\*|\bGauges: `/;
  for (let i = 0; i < lines.length; i += 1) {
    const first = lines[i] as string;
    const at = first.search(lead);
    if (at < 0) continue;
    const passage = [first.slice(at)];
    for (let j = i + 1; j < lines.length; j += 1) {
      const next = lines[j] as string;
      if (next.trim() === '' || /^\s*- /.test(next) || /^#/.test(next)) break;
      passage.push(next);
    }
    passages.push(passage.join('\n'));
  }
  return passages;
}

/** Tables and views (also names in backquotes, never metrics), from the migrations. */
function databaseRelations(): Set<string> {
  const names = new Set<string>();
  const dir = path.join(PROJECT_DIR, 'migrations');
  for (const file of readdirSync(dir)) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    for (const match of text.matchAll(
      /createTable\('(\w+)'\)|CREATE TABLE (?:IF NOT EXISTS )?(\w+)|CREATE (?:OR REPLACE )?VIEW (\w+)/g,
    )) {
      names.add((match[1] ?? match[2] ?? match[3]) as string);
    }
  }
  return names;
}

/** Metric names in the backquoted code of prose passages (tables and views left out). */
function metricsNamedInProse(passages: string[]): Set<string> {
  const relations = databaseRelations();
  const names = new Set<string>();
  for (const passage of passages) {
    for (const code of passage.matchAll(/`([^`]+)`/g)) {
      for (const name of metricNamesIn(code[1] as string)) {
        if (name.includes('_') && !relations.has(name)) names.add(name);
      }
    }
  }
  return names;
}

// --- what /metrics serves -----------------------------------------------------------------------

interface Exposition {
  /** Metric family name → its TYPE. */
  types: Map<string, string>;
  /** Families with at least one sample (a histogram's `_bucket`/`_sum`/`_count` count for it). */
  sampled: Set<string>;
}

function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    types.set(match[1] as string, match[2] as string);
  }
  const sampled = new Set<string>();
  for (const match of text.matchAll(/^([a-zA-Z_:][\w:]*)[{ ]/gm)) {
    sampled.add(familyOf(match[1] as string, types));
  }
  return { types, sampled };
}

function familyOf(name: string, types: Map<string, string>): string {
  const suffixed = /^(.*)_(?:bucket|sum|count)$/.exec(name);
  const base = suffixed?.[1];
  if (base !== undefined && ['histogram', 'summary'].includes(types.get(base) ?? '')) return base;
  return name;
}

/** The names not served (none: an empty list), each with why. */
function notServed(names: Iterable<string>, served: Exposition): string[] {
  const missing: string[] = [];
  for (const name of [...names].sort()) {
    const family = familyOf(name, served.types);
    if (served.sampled.has(family)) continue;
    missing.push(
      served.types.has(family)
        ? `${name}: registered but no sample yet (a labelled series never incremented)`
        : `${name}: not registered`,
    );
  }
  return missing;
}

// --- the receiver -------------------------------------------------------------------------------

let database: TestDatabase;
let keys: SandboxKeys;
let sandbox: Sandbox;
let sandboxServer: { url: string; close(): Promise<void> };
let consumer: Awaited<ReturnType<typeof startConsumer>>;
let service: RunningProcess | undefined;
let metricsUrl: string;
let scraped: Exposition;

async function scrape(): Promise<string> {
  const response = await fetch(metricsUrl);
  expect(response.status).toBe(200);
  return response.text();
}

/** A sample's value (the first series matching `selector`, e.g. `name{label="x"}`), or undefined. */
function sampleValue(text: string, selector: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${selector} `));
  return line === undefined ? undefined : Number(line.slice(selector.length + 1));
}

beforeAll(async () => {
  database = await createTestDatabase();
  keys = await createSandboxKeys({});
  sandbox = createSandbox({ credentials: CREDENTIALS, keys, retryDelayMs: 100 });
  sandboxServer = await sandbox.listen(0, '127.0.0.1');
  const feedSecret = newWebhookSecret();
  consumer = await startConsumer({ secret: feedSecret.text });

  const port = await freePort();
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  service = runMain('serve', {
    DATABASE_URL: database.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    METRICS_PORT: String(metricsPort),
    WEBHOOK_SECRETS: SECRET,
    // The platform is the sandbox: the signing key is fetched from it, recovery calls it.
    PROVIDER_ENV: 'local',
    PROVIDER_BASE_URL: sandboxServer.url,
    PROVIDER_AUTH_URL: sandboxServer.url,
    PROVIDER_API_KEY: CREDENTIALS.apiKey,
    PROVIDER_MACCOUNT: CREDENTIALS.mAccount,
    RECOVERY_INTERVAL_MS: '1000',
    FEED_TOKEN: 'observability-feed-token-0123456789',
    FEED_PORT: String(await freePort()),
    FEED_HTTP_URL: consumer.url,
    FEED_HTTP_SECRET: feedSecret.text,
  });
  const running = service;
  await waitFor(
    () => {
      if (running.child.exitCode !== null) {
        throw new Error(`the receiver exited (${running.child.exitCode}):\n${running.output()}`);
      }
      return running.output().includes('receiver listening');
    },
    'the receiver',
    90_000,
  );

  // A stored payment, then the same TransactionId with another amount: a conflict.
  const deliver = async (body: Record<string, unknown>) => {
    const bytes = bodyBytes(body);
    const response = await fetch(`http://127.0.0.1:${port}/webhooks/NPPReceivePayment`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Webhookid: freshWebhookId(),
        Authorisation: SECRET,
        'Verification-Signature': signBody(bytes, keys.current().privateKey),
      },
      body: bytes,
    });
    expect(response.status).toBe(200);
  };
  const payment = nppPayment();
  await deliver(payment);
  await deliver({ ...payment, Amount: 99.5 });

  // The relay hands both events on; a scheduled recovery run completes against the sandbox.
  await waitFor(() => consumer.accepted().length >= 2, 'the feed relay to send both events');
  await waitFor(
    async () => (sampleValue(await scrape(), 'recovery_runs_total{result="ok"}') ?? 0) >= 1,
    'a recovery run',
  );
  scraped = parseExposition(await scrape());
}, 180_000);

afterAll(async () => {
  if (service) {
    service.child.kill('SIGTERM');
    if ((await exitWithin(service, 20_000)) === 'still running') service.child.kill('SIGKILL');
  }
  await consumer?.close();
  sandbox?.close();
  await sandboxServer?.close();
  await database?.drop();
}, 60_000);

// --- the tests ----------------------------------------------------------------------------------

describe('reading metric names out of PromQL', () => {
  it.each([
    [
      'sum by (instance, le) (rate(http_request_duration_seconds_bucket{job="x",route="webhook"}[5m])) > 1',
      ['http_request_duration_seconds_bucket'],
    ],
    [
      'time() - max(recovery_last_success_timestamp_seconds{job="x"}) > 3600',
      ['recovery_last_success_timestamp_seconds'],
    ],
    ['made_up_metric_total unless made_up_metric_total offset 5m', ['made_up_metric_total']],
    [
      'sum(rate(a_total{instance=~"$instance"}[$__rate_interval])) / on (instance) group_left sum(rate(b_count[1m]))',
      ['a_total', 'b_count'],
    ],
    ['max(foo_gauge > 0) * 1e3 and bar_gauge == 1', ['foo_gauge', 'bar_gauge']],
    ['count_values("version", build_info) without (job)', ['build_info']],
  ])('%s names %j', (expr, names) => {
    expect([...metricNamesIn(expr)].sort()).toEqual([...names].sort());
  });

  it('the prose reader keeps metrics and leaves out tables, views and commands', () => {
    const names = metricsNamedInProse([
      '**Alert on**: `webhook_conflicts_total` increasing (see `open_conflicts`); `recovery_payto_unmatched_receipts > 0` (see `payto_unmatched_receipts`); `npm run quarantine -- list`; `time() - max(recovery_last_success_timestamp_seconds)`',
    ]);
    expect([...names].sort()).toEqual([
      'recovery_last_success_timestamp_seconds',
      'recovery_payto_unmatched_receipts',
      'webhook_conflicts_total',
    ]);
  });
});

describe('the alert rules', () => {
  const rules = readRules(readFileSync(RULES_FILE, 'utf8'));

  it('are read: about twenty, each with an expression', () => {
    expect(rules.length).toBeGreaterThanOrEqual(20);
    for (const rule of rules) expect(rule.expr, rule.alert).not.toBe('');
  });

  it('each name a runbook that exists in the repository and speaks of the alert', () => {
    for (const rule of rules) {
      expect(rule.runbookUrl, rule.alert).toMatch(/^docs\/runbooks\/[\w-]+\.md$/);
      const file = path.join(PROJECT_DIR, rule.runbookUrl as string);
      expect(existsSync(file), `${rule.alert}: ${rule.runbookUrl}`).toBe(true);
      expect(readFileSync(file, 'utf8'), `${rule.runbookUrl} names ${rule.alert}`).toContain(
        rule.alert,
      );
    }
  });

  it('each have a case in alerts.test.yml where they fire and one where they do not', () => {
    const tests = readFileSync(RULES_TEST_FILE, 'utf8');
    for (const rule of rules) {
      const name = rule.alert;
      expect(tests, `${name} not firing`).toMatch(
        new RegExp(`alertname: ${name}\\s*\\n\\s*exp_alerts: \\[\\]`),
      );
      expect(tests, `${name} firing`).toMatch(
        new RegExp(`alertname: ${name}\\s*\\n\\s*exp_alerts:\\s*\\n\\s*- exp_labels:`),
      );
    }
  });

  it('read only metrics a running receiver serves', () => {
    const names = new Set(rules.flatMap((rule) => [...metricNamesIn(rule.expr)]));
    expect(names.size).toBeGreaterThan(10);
    expect(notServed(names, scraped)).toEqual([]);
  });

  const promtool = spawnSync('promtool', ['--version']).status === 0;
  // promtool evaluates every rule test over simulated hours: seconds of CPU, more on a loaded
  // machine (it once passed 20 s in CI), so it gets its own bound and does not block the worker.
  it.skipIf(!promtool)(
    'pass `promtool check rules` and `promtool test rules`',
    async () => {
      for (const args of [
        ['check', 'rules', RULES_FILE],
        ['test', 'rules', RULES_TEST_FILE],
      ]) {
        const run = await runPromtool(args);
        expect(run.status, `promtool ${args.join(' ')}\n${run.output}`).toBe(0);
      }
    },
    PROMTOOL_TIMEOUT_MS,
  );
});

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as {
    templating: { list: { name: string; type: string; query: unknown }[] };
    panels: { type: string; title: string; datasource?: { uid?: string }; targets?: unknown[] }[];
  };

  it('reads only metrics a running receiver serves', () => {
    const names = new Set(dashboardExpressions(dashboard).flatMap((e) => [...metricNamesIn(e)]));
    expect(names.size).toBeGreaterThan(20);
    expect(notServed(names, scraped)).toEqual([]);
  });

  it('takes its Prometheus from a datasource variable, in every panel and target', () => {
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    for (const panel of dashboard.panels.filter((p) => p.targets)) {
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      for (const target of panel.targets ?? []) {
        expect(target, panel.title).toMatchObject({ datasource: { uid: '${datasource}' } });
      }
    }
  });
});

describe('the prose', () => {
  it.each(['README.md', 'docs/feed.md'])(
    'every metric %s names where it says what to alert on is served',
    (file) => {
      const passages = metricProse(readFileSync(path.join(PROJECT_DIR, file), 'utf8'));
      expect(passages.some((p) => p.startsWith('**Alert on**'))).toBe(true);
      const names = metricsNamedInProse(passages);
      expect(names.size).toBeGreaterThan(5);
      expect(notServed(names, scraped)).toEqual([]);
    },
  );
});

const PROMTOOL_TIMEOUT_MS = 180_000;

/** promtool's exit status and output, without blocking the test worker while it runs. */
async function runPromtool(args: string[]): Promise<{ status: number | null; output: string }> {
  const child = spawn('promtool', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, output };
}
