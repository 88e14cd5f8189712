import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRUNE_STEPS } from '../../../src/cli/prune-steps.ts';
import type { PruneStep, StepContext } from '../../../src/lib/database/prune-step.ts';
import { readCutoffs } from '../../../src/operations/retention/prune-run-context.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Every batch of the prune must cost what a batch prunes, never what the table holds: on seeded
 * tables the plan of each batch statement reads every table through an index, with a relay and
 * without one, never a sequential scan. The two tables that grow with traffic are seeded as on
 * the first run after an upgrade (200,000 deliveries and feed events, half of them past the
 * retention, one event in twenty not yet sent); the smaller ones as in steady state (20,000
 * quarantine rows, runs, report-row problems and conflicts, a few of them past it; 100,000
 * recovery attempts, half past it). recovery_progress (two rows a day, about 180 kept) is too
 * small for a plan to matter.
 */
const DELIVERIES = 200_000;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  // Half the deliveries older than 90 days; one in twenty with its event not yet sent.
  await database.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
       raw_body, payload, content_type, headers)
     SELECT g, 'NppReturn', false, now() - interval '180 days' + g * interval '70 seconds',
       encode(sha256(('b' || g)::bytea), 'hex'), ('{"n":' || g || '}')::bytea,
       ('{"n":' || g || '}')::jsonb, 'application/json', '{}'
     FROM generate_series(1, $1) AS g`,
    [DELIVERIES],
  );
  await database.query(
    `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id, created_at)
     SELECT g, 'event.unmodelled', 'NppReturn', g::text, g,
       now() - interval '180 days' + g * interval '70 seconds'
     FROM generate_series(1, $1) AS g`,
    [DELIVERIES],
  );
  // Delivered to the endpoint FEED_HTTP_URL declares (fanned out through all but the last
  // thousand): one in twenty not yet sent.
  await database.query(
    `INSERT INTO feed_endpoint_events (endpoint_id, position, event_id, type, event_name,
       business_key, state, attempts, sent_at)
     SELECT ep.id, e.position, e.id, e.type, e.event_name, e.business_key,
       CASE WHEN e.position % 20 = 0 THEN 'pending' ELSE 'sent' END, 1,
       CASE WHEN e.position % 20 = 0 THEN NULL ELSE e.created_at + interval '1 day' END
     FROM feed_events e, feed_endpoints ep
     WHERE ep.name = 'configured' AND e.position <= $1 - 1000`,
    [DELIVERIES],
  );
  await database.query(
    `UPDATE feed_endpoints SET fanned_through = $1 - 1000 WHERE name = 'configured'`,
    [DELIVERIES],
  );
  // Two attempts an event, half of them past RETENTION_FEED_ATTEMPTS_DAYS.
  await database.query(
    `INSERT INTO feed_attempts (endpoint_id, event_id, position, attempt, started_at,
       duration_ms, outcome, status, instance)
     SELECT ep.id, g / 2, g / 2, 1, now() - interval '60 days' + g * interval '13 seconds', 10,
       'sent', 204, 'i1'
     FROM feed_endpoints ep, generate_series(1, $1 * 2) AS g WHERE ep.name = 'configured'`,
    [DELIVERIES],
  );
  await database.query(
    `INSERT INTO feed_events (type, event_name, business_key, webhook_id)
     SELECT 'event.unmodelled', 'NppReturn', g::text, g FROM generate_series(1, 20) AS g`,
  );
  await database.query(
    `INSERT INTO recovery_attempts (webhook_id, report_day, reason, attempted_at, outcome)
     SELECT g / 3, (now() - interval '180 days' + g * interval '2 minutes')::date, 'missing',
       now() - interval '180 days' + g * interval '2 minutes', 'failed'
     FROM generate_series(1, 100000) AS g`,
  );
  await database.query(
    `INSERT INTO quarantined_deliveries (event_name, webhook_id_header, received_at, body_sha256,
       raw_body, headers, reasons, handled_at, handling)
     SELECT 'NPPReceivePayment', g::text, now() - interval '200 days' + g * interval '10 minutes',
       encode(sha256(('q' || g)::bytea), 'hex'), 'x', '{}', '[]',
       CASE WHEN g % 10 = 0 THEN NULL ELSE now() - interval '92 days' + g * interval '6 minutes' END,
       CASE WHEN g % 10 = 0 THEN NULL ELSE 'marked' END
     FROM generate_series(1, 20000) AS g`,
  );
  await database.query(
    `INSERT INTO recovery_runs (started_at, finished_at, days, ok, summary)
     SELECT now() - interval '92 days' + g * interval '6 minutes',
       now() - interval '92 days' + g * interval '6 minutes', '{}', true, '{}'
     FROM generate_series(1, 20000) AS g`,
  );
  await database.query(
    `INSERT INTO recovery_row_problems (report_day, report_kind, row_number, reason, raw,
       fingerprint, first_run_id, last_run_id, first_seen_at, last_seen_at)
     SELECT '2026-01-01', 'delivery', g, 'bad', 'row', 'f' || g, g, g,
       now() - interval '92 days' + g * interval '6 minutes',
       now() - interval '92 days' + g * interval '6 minutes'
     FROM generate_series(1, 20000) AS g`,
  );
  await database.query(
    `INSERT INTO conflicts (table_name, event_name, business_key, first_webhook_id, webhook_id,
       record_index, differences, resolved_at)
     SELECT 'npp_payments', 'NPPReceivePayment', 'T' || g, g * 10, g * 10 + 1, 0, '[]',
       CASE WHEN g % 10 = 0 THEN NULL ELSE now() END
     FROM generate_series(1, 19999) AS g`,
  );
  await database.query(
    'ANALYZE webhook_deliveries, feed_events, feed_endpoint_events, feed_attempts, feed_endpoints, recovery_attempts, quarantined_deliveries, recovery_runs, recovery_row_problems, conflicts',
  );
}, 180_000);
afterAll(() => database?.drop());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The scans of the step's batch statement (as the run sends it, with its parameters). */
async function scansOf(step: PruneStep, context: StepContext): Promise<PlanNode[]> {
  const compiled = step.statement(context, step.start, 1000).compile(database.db);
  let text = compiled.sql;
  let parameters: unknown[] = [...compiled.parameters];
  if (step.name === 'feed_events') {
    // The batch calls prune_sent_feed_events() (the runtime role has no DELETE on feed_events,
    // issue 24 item 9), whose plan EXPLAIN does not show: its body is planned instead, with the
    // same parameters (after, cutoff, limit), as the function runs it.
    const [body] = await database.query<{ prosrc: string }>(
      "SELECT prosrc FROM pg_proc WHERE proname = 'prune_sent_feed_events'",
    );
    text = body!.prosrc;
    parameters = [step.start[0], context.cutoffs.feed, 1000];
  }
  const [row] = await database.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (FORMAT JSON) ${text}`,
    parameters,
  );
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    if (node['Relation Name'] || node['Index Name']) nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(row!['QUERY PLAN'][0].Plan);
  return nodes;
}

/** The index each step's own table must be read through. */
const DRIVING_INDEX: Record<string, string> = {
  webhook_deliveries: 'webhook_deliveries_unpruned',
  quarantined_deliveries: 'quarantined_deliveries_prunable',
  feed_events: 'feed_events_position',
  feed_attempts: 'feed_attempts_started_at',
  recovery_attempts: 'recovery_attempts_attempted',
  recovery_row_problems: 'recovery_row_problems_last_seen',
  recovery_runs: 'recovery_runs_finished',
};

describe('the prune batch plans on seeded tables', () => {
  for (const relayInUse of [true, false]) {
    for (const step of PRUNE_STEPS.filter((s) => s.name !== 'recovery_progress')) {
      it(`when a ${step.name} batch is planned ${relayInUse ? 'with' : 'without'} a relay, then no table is read sequentially and the step's own index drives it`, async () => {
        const cutoffs = await readCutoffs(database.db, {
          rawDays: 90,
          feedDays: 30,
          feedAttemptsDays: 30,
          recoveryDays: 90,
        });
        const scans = await scansOf(step, {
          cutoffs,
          relayInUse,
          fannedThrough: String(DELIVERIES - 1000),
        });
        expect(scans.length).toBeGreaterThan(0);
        // feed_endpoints holds a row per endpoint (a handful): read whole, as it should be.
        for (const scan of scans.filter((s) => s['Relation Name'] !== 'feed_endpoints')) {
          expect(scan['Node Type'], JSON.stringify(scan)).not.toBe('Seq Scan');
        }
        expect(
          scans.map((scan) => scan['Index Name']),
          JSON.stringify(scans),
        ).toContain(DRIVING_INDEX[step.name]);
      });
    }
  }
});
