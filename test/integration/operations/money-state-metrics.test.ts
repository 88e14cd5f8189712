import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from '../../../src/lib/database/database.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { registerMoneyStateMetrics } from '../../../src/operations/index.ts';
import { markHandled } from '../../../src/operations/quarantine/quarantine-operations.ts';
import { createPaytoRepository } from '../../../src/platform/recovery/payto-repository.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import { metricsRouter } from '../../../src/lib/http/metrics-route.ts';
import { createMetrics } from '../../../src/receiver/index.ts';
import type { TcpProxy } from '../../../tools/common/tcp-proxy.ts';
import { logLines } from '../../support/log-lines.ts';
import { proxyDatabase } from '../../support/proxied-database.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Money that waits for an operator has gauges on /metrics (issue 24, item 10): open quarantine
 * rows, open conflicts, refunds in doubt by state and unresolved PayTo receipts, each with the
 * age of the oldest. Real Postgres (through a TCP proxy, to cut it off), the metrics route
 * through supertest, rows resolved the ways an operator resolves them.
 */
const HOUR = 3600;
const DAY = 24 * HOUR;

let database: TestDatabase;
let proxy: TcpProxy;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  const proxied = await proxyDatabase(database);
  proxy = proxied.proxy;
  db = createDatabase({ url: proxied.url, poolMax: 2, connectionTimeoutMs: 1000 });

  // Two quarantined deliveries open (3 h and 1 h old), one handled long ago.
  await database.query(
    `INSERT INTO quarantined_deliveries (event_name, webhook_id_header, received_at, body_sha256,
       raw_body, headers, reasons, handled_at, handling)
     VALUES
       ('NPPReceivePayment', 'q1', now() - interval '3 hours', repeat('1', 64), '\\x7b7d', '{}', '[]', NULL, NULL),
       ('PayToReceivePayment', 'q2', now() - interval '1 hour', repeat('2', 64), '\\x7b7d', '{}', '[]', NULL, NULL),
       ('NPPReceivePayment', 'q3', now() - interval '9 days', repeat('3', 64), '\\x7b7d', '{}', '[]', now() - interval '8 days', 'marked')`,
  );
  // One open conflict (2 h old), one resolved; each names the two deliveries it came from.
  await database.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
       raw_body, payload, content_type, headers)
     SELECT g, 'NPPReceivePayment', true, now() - interval '5 days', encode(sha256(g::text::bytea), 'hex'),
       '\\x7b7d', '{}'::jsonb, 'application/json', '{}'
     FROM unnest(ARRAY[10, 11, 20, 21]) AS g`,
  );
  await database.query(
    `INSERT INTO conflicts (table_name, event_name, business_key, first_webhook_id, webhook_id,
       record_index, differences, detected_at, resolved_at, resolution)
     VALUES
       ('npp_payments', 'NPPReceivePayment', 'T1', 10, 11, 0, '[]', now() - interval '2 hours', NULL, NULL),
       ('npp_payments', 'NPPReceivePayment', 'T2', 20, 21, 0, '[]', now() - interval '5 days', now() - interval '4 days', 'checked')`,
  );
  // Refunds: one pending 20 minutes old, two unknown (2 days and 1 hour), one of each outcome.
  await database.query(
    `INSERT INTO refunds (unique_reference, caller_reference, transaction_id, payment_event, amount,
       state, requested_at)
     VALUES
       ('rf-pending', 'c-pending', 'N1', 'NPPReceivePayment', '10.00', 'pending', now() - interval '20 minutes'),
       ('rf-unknown-old', 'c-unknown-old', 'N2', 'NPPReceivePayment', '20.00', 'unknown', now() - interval '2 days'),
       ('rf-unknown-new', 'c-unknown-new', 'N3', 'NPPReceivePayment', '30.00', 'unknown', now() - interval '1 hour'),
       ('rf-succeeded', 'c-succeeded', 'N4', 'NPPReceivePayment', '40.00', 'succeeded', now() - interval '3 days'),
       ('rf-failed', 'c-failed', 'N5', 'NPPReceivePayment', '50.00', 'failed', now() - interval '3 days')`,
  );
  // One PayTo receipt first seen 3 days ago and still unmatched, one resolved.
  await database.query(
    `INSERT INTO payto_unmatched_receipts (transaction_id, report_day, amount, report_row,
       first_seen_at, last_seen_at, resolved_at)
     VALUES
       ('P1', current_date - 3, '12.50', '{}', now() - interval '3 days', now(), NULL),
       ('P2', current_date - 6, '7.00', '{}', now() - interval '6 days', now() - interval '5 days', now() - interval '5 days')`,
  );
}, 60_000);

afterAll(async () => {
  // The proxy first: it drops the connection the last test froze, so the pool can end.
  await proxy?.close();
  await db?.destroy();
  await database?.drop();
});

/** A receiver's metrics route with the money-state gauges, on a clock the test moves. */
function metricsApp(options: { timeoutMs?: number } = {}) {
  const metrics = createMetrics();
  const log = logLines();
  let clock = 0;
  registerMoneyStateMetrics({
    db,
    registry: metrics.registry,
    logger: createLogger('debug', log.sink),
    now: () => clock,
    ...options,
  });
  const app = express().use(metricsRouter(metrics.registry));
  return {
    scrape: async () => {
      const response = await request(app).get('/metrics');
      expect(response.status).toBe(200);
      return response.text;
    },
    /** Past the 5 s the last read is kept for. */
    nextRead: () => {
      clock += 5001;
    },
    logs: log.lines,
  };
}

/** The value of the first sample whose name and labels are `selector`, or undefined. */
function sample(text: string, selector: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${selector} `));
  return line === undefined ? undefined : Number(line.slice(selector.length + 1));
}

function expectAbout(value: number | undefined, seconds: number) {
  expect(value).toBeGreaterThanOrEqual(seconds - 60);
  expect(value).toBeLessThanOrEqual(seconds + 60);
}

describe('the money-state gauges', () => {
  it('when rows wait, then each gauge counts them and gives the oldest one age; resolved rows leave them', async () => {
    const metrics = metricsApp();
    const text = await metrics.scrape();

    expect(sample(text, 'webhook_quarantine_open')).toBe(2);
    expectAbout(sample(text, 'webhook_quarantine_oldest_open_age_seconds'), 3 * HOUR);
    expect(sample(text, 'webhook_conflicts_open')).toBe(1);
    expectAbout(sample(text, 'webhook_conflicts_oldest_open_age_seconds'), 2 * HOUR);
    expect(sample(text, 'refunds_in_doubt{state="pending"}')).toBe(1);
    expect(sample(text, 'refunds_in_doubt{state="unknown"}')).toBe(2);
    expectAbout(sample(text, 'refunds_oldest_in_doubt_age_seconds{state="pending"}'), 20 * 60);
    expectAbout(sample(text, 'refunds_oldest_in_doubt_age_seconds{state="unknown"}'), 2 * DAY);
    expect(sample(text, 'recovery_payto_unmatched_open')).toBe(1);
    expectAbout(sample(text, 'recovery_payto_unmatched_oldest_open_age_seconds'), 3 * DAY);
    expect(sample(text, 'money_state_reads_total{result="ok"}')).toBe(1);
    expect(sample(text, 'money_state_reads_total{result="failed"}')).toBe(0);

    // An operator deals with the oldest of each, the ways the runbooks say.
    const [oldest] = await database.query<{ id: string }>(
      `SELECT id FROM quarantined_deliveries WHERE webhook_id_header = 'q1'`,
    );
    const handled = await markHandled(
      db,
      String(oldest!.id),
      'marked',
      'entered by hand',
      () => new Date(),
    );
    expect(handled).toBe(true);
    await database.query(
      `UPDATE conflicts SET resolved_at = now(), resolution = 'first amount confirmed' WHERE business_key = 'T1'`,
    );
    await database.query(
      `UPDATE refunds SET state = 'succeeded', completed_at = now() WHERE unique_reference IN ('rf-pending', 'rf-unknown-old')`,
    );
    await createPaytoRepository(withProviderTables(db)).resolve(['P1'], new Date());

    // Within 5 s of the last read the scrape answers from it: the database is not read again.
    const cached = await metrics.scrape();
    expect(sample(cached, 'webhook_quarantine_open')).toBe(2);
    expect(sample(cached, 'money_state_reads_total{result="ok"}')).toBe(1);

    metrics.nextRead();
    const after = await metrics.scrape();
    expect(sample(after, 'money_state_reads_total{result="ok"}')).toBe(2);
    expect(sample(after, 'webhook_quarantine_open')).toBe(1);
    expectAbout(sample(after, 'webhook_quarantine_oldest_open_age_seconds'), HOUR);
    expect(sample(after, 'webhook_conflicts_open')).toBe(0);
    expect(sample(after, 'webhook_conflicts_oldest_open_age_seconds')).toBe(0);
    expect(sample(after, 'refunds_in_doubt{state="pending"}')).toBe(0);
    expect(sample(after, 'refunds_oldest_in_doubt_age_seconds{state="pending"}')).toBe(0);
    expect(sample(after, 'refunds_in_doubt{state="unknown"}')).toBe(1);
    expectAbout(sample(after, 'refunds_oldest_in_doubt_age_seconds{state="unknown"}'), HOUR);
    expect(sample(after, 'recovery_payto_unmatched_open')).toBe(0);
    expect(sample(after, 'recovery_payto_unmatched_oldest_open_age_seconds')).toBe(0);
  });

  it('when the database cannot be reached, then the gauges are absent (not 0), the failure is counted and the rest of /metrics is served', async () => {
    const metrics = metricsApp();
    expect(sample(await metrics.scrape(), 'refunds_in_doubt{state="unknown"}')).toBeDefined();

    proxy.cut();
    try {
      metrics.nextRead();
      const text = await metrics.scrape();
      for (const name of [
        'webhook_quarantine_open',
        'webhook_quarantine_oldest_open_age_seconds',
        'webhook_conflicts_open',
        'webhook_conflicts_oldest_open_age_seconds',
        'refunds_in_doubt',
        'refunds_oldest_in_doubt_age_seconds',
        'recovery_payto_unmatched_open',
        'recovery_payto_unmatched_oldest_open_age_seconds',
      ]) {
        expect(text, name).toContain(`# TYPE ${name} gauge`);
        expect(text, name).not.toMatch(new RegExp(`^${name}[{ ]`, 'm'));
      }
      expect(sample(text, 'money_state_reads_total{result="failed"}')).toBe(1);
      expect(sample(text, 'money_state_reads_total{result="ok"}')).toBe(1);
      expect(sample(text, 'webhook_deliveries_in_flight')).toBe(0);
      // Scraped again within 5 s: the failure is not read (or counted) twice.
      expect(sample(await metrics.scrape(), 'money_state_reads_total{result="failed"}')).toBe(1);
      expect(metrics.logs()).toContainEqual(
        expect.objectContaining({ msg: 'money states unreadable: their gauges are absent' }),
      );
    } finally {
      proxy.restore();
    }

    metrics.nextRead();
    const back = await metrics.scrape();
    expect(sample(back, 'refunds_in_doubt{state="unknown"}')).toBe(1);
    expect(sample(back, 'money_state_reads_total{result="ok"}')).toBe(2);
    expect(metrics.logs()).toContainEqual(
      expect.objectContaining({ msg: 'money states readable again' }),
    );
  });

  it('when the database stops answering, then a scrape waits no longer than the timeout and the gauges are absent', async () => {
    const metrics = metricsApp({ timeoutMs: 300 });
    // Every connection of the pool frozen mid-way (packets dropped): the read never returns.
    await metrics.scrape();
    proxy.freeze();
    metrics.nextRead();
    const started = performance.now();
    const text = await metrics.scrape();
    const waited = performance.now() - started;
    expect(waited).toBeLessThan(1500);
    expect(text).not.toMatch(/^webhook_quarantine_open /m);
    expect(sample(text, 'money_state_reads_total{result="failed"}')).toBe(1);
  });
});
