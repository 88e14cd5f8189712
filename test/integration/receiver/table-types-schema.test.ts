import type { SelectType } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/lib/database/database.ts';
import type { TYPED_TABLES } from '../../../src/receiver/events/event-types.ts';
import type { ProviderTables } from '../../../src/platform/storage/tables.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The Kysely interfaces written by hand (the receiver's, the feed's and the platform's tables
 * other than the typed ones) against the schema the migrations build, as kysely-codegen would
 * check them: each table's columns are listed below with whether they may be null, and the list
 * must be exactly its interface (the compiler checks every column is there, none is extra, and
 * each one's nullability is the interface's), and exactly the migrated table (checked here).
 * The typed tables' interfaces are derived from the data contract (src/receiver/storage/
 * tables.ts), which event-types-schema.test.ts checks against the schema.
 */

/**
 * Per column of a table: whether its value as read may be null, as its interface says
 * (`unknown`: jsonb of any shape, whose type cannot say; only the column's presence is checked).
 */
type Nullability<Table> = {
  [C in keyof Table]: unknown extends SelectType<Table[C]>
    ? 'unknown'
    : null extends SelectType<Table[C]>
      ? true
      : false;
};

type HandWritten = Omit<Database, (typeof TYPED_TABLES)[number]['table']> & ProviderTables;

const DECLARED: { [T in keyof HandWritten]: Nullability<HandWritten[T]> } = {
  webhook_deliveries: {
    webhook_id: false,
    event_name: false,
    modelled: false,
    received_at: false,
    body_sha256: false,
    raw_body: true,
    payload: 'unknown',
    content_type: true,
    headers: true,
    request_id: true,
    remote_address: true,
    signing_key_fingerprint: true,
    warnings: false,
    pruned_at: true,
  },
  direct_credit_batches: {
    webhook_id: false,
    total_count: true,
    total_amount: true,
    record_count: false,
    received_at: false,
  },
  conflicts: {
    id: false,
    table_name: false,
    event_name: false,
    business_key: false,
    first_webhook_id: false,
    webhook_id: false,
    record_index: false,
    differences: false,
    detected_at: false,
    resolved_at: true,
    resolution: true,
  },
  quarantined_deliveries: {
    id: false,
    event_name: false,
    webhook_id_header: true,
    webhook_id: true,
    received_at: false,
    body_sha256: false,
    raw_body: false,
    content_type: true,
    headers: false,
    reasons: false,
    request_id: true,
    remote_address: true,
    signing_key_fingerprint: true,
    handled_at: true,
    handling: true,
    handled_note: true,
    pruned_at: true,
  },
  feed_events: {
    id: false,
    position: true,
    type: false,
    event_name: false,
    business_key: false,
    webhook_id: true,
    conflict_id: true,
    quarantine_id: true,
    created_at: false,
    relay_state: false,
    attempts: false,
    first_attempt_at: true,
    next_attempt_at: true,
    claimed_by: true,
    claimed_until: true,
    last_error: true,
    sent_at: true,
    dead_at: true,
  },
  feed_relay_control: { id: false, paused: false, changed_at: false, reason: true },
  feed_endpoints: {
    id: false,
    name: false,
    kind: false,
    target: true,
    options: false,
    types: false,
    secrets: false,
    credentials: true,
    rate_per_second: true,
    timeout_ms: false,
    concurrency: false,
    max_age_ms: false,
    enabled: false,
    paused: false,
    paused_reason: true,
    fanned_through: false,
    declared_by: false,
    created_at: false,
    updated_at: false,
  },
  feed_endpoint_events: {
    endpoint_id: false,
    position: false,
    event_id: false,
    type: false,
    event_name: false,
    business_key: false,
    state: false,
    attempts: false,
    first_attempt_at: true,
    next_attempt_at: true,
    claimed_by: true,
    claimed_until: true,
    last_error: true,
    sent_at: true,
    dead_at: true,
    replays: false,
  },
  feed_attempts: {
    id: false,
    endpoint_id: false,
    event_id: false,
    position: false,
    attempt: false,
    started_at: false,
    duration_ms: false,
    outcome: false,
    status: true,
    response_excerpt: true,
    error: true,
    instance: false,
  },
  recovery_attempts: {
    id: false,
    webhook_id: false,
    event_name: true,
    report_day: false,
    reason: false,
    attempted_at: false,
    outcome: false,
    http_status: true,
    provider_status: true,
    description: true,
    report_retry_count: true,
    report_last_retry: true,
  },
  recovery_runs: {
    id: false,
    started_at: false,
    finished_at: true,
    days: false,
    ok: false,
    summary: 'unknown',
    holder: true,
  },
  recovery_progress: {
    report_day: false,
    report_kind: false,
    next_skip: false,
    pass_started_at: false,
    updated_at: false,
  },
  recovery_row_problems: {
    id: false,
    report_day: false,
    report_kind: false,
    row_number: false,
    reason: false,
    raw: false,
    fingerprint: false,
    first_run_id: true,
    last_run_id: true,
    first_seen_at: false,
    last_seen_at: false,
    times_seen: false,
  },
  payto_unmatched_receipts: {
    transaction_id: false,
    report_day: false,
    amount: true,
    date_time_text: true,
    report_row: false,
    first_seen_at: false,
    last_seen_at: false,
    resolved_at: true,
  },
  refunds: {
    unique_reference: false,
    caller_reference: false,
    dialect: true,
    transaction_id: false,
    payment_event: false,
    amount: false,
    state: false,
    description: true,
    refund_reference: true,
    requested_at: false,
    completed_at: true,
    attempts: false,
    refund_transaction_id: true,
    fee_amount_excluding_gst: true,
    fee_amount_including_gst: true,
    fee_amount_gst_component: true,
    http_status: true,
    provider_status: true,
    status_description: true,
    resolved_by: true,
    resolved_at: true,
    resolution_evidence: true,
  },
};

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database.drop();
});

describe('the hand-written table types against the migrated schema', () => {
  it.each(Object.entries(DECLARED))(
    'when %s is declared, then its columns and their nullability are the migrated table’s',
    async (table, declared) => {
      const columns = await database.query<{ column_name: string; is_nullable: 'YES' | 'NO' }>(
        `SELECT column_name, is_nullable FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY column_name`,
        [table],
      );
      expect(columns.length).toBeGreaterThan(0);
      const unknown = new Set(
        Object.entries(declared).flatMap(([column, nullable]) =>
          nullable === 'unknown' ? [column] : [],
        ),
      );
      const schema = Object.fromEntries(
        columns.map((c) => [
          c.column_name,
          unknown.has(c.column_name) ? 'unknown' : c.is_nullable === 'YES',
        ]),
      );
      expect(schema).toEqual(declared);
    },
  );
});
