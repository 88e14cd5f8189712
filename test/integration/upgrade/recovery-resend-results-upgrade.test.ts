import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigrator } from '../../../src/lib/database/migrator.ts';
import { createAttemptsRepository } from '../../../src/platform/recovery/attempts-repository.ts';
import { decideResend } from '../../../src/platform/recovery/resend-decision.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import {
  createTestDatabase,
  migratedUpToBefore,
  type TestDatabase,
} from '../../support/test-database.ts';

/**
 * Migration 2026-11-28T03-00-00 adds what the report said at each resend to recovery_attempts.
 * Resends recorded by the previous release keep every value; the new code reads them as "nothing
 * known of the report" (the spacing rule), and still retries a resend call that failed 5xx.
 */
const RESULTS = '2026-11-28T03-00-00_recovery-resend-results';
const policy = { maxAttempts: 3, spacingMs: 10 * 60_000 };
let database: TestDatabase;
let before: unknown[];

const rows = () =>
  database.query<Record<string, unknown>>(
    `SELECT to_jsonb(a) - 'report_retry_count' - 'report_last_retry' AS row
       FROM recovery_attempts a ORDER BY id`,
  );

beforeAll(async () => {
  database = await createTestDatabase(migratedUpToBefore(RESULTS));
  // As the previous release wrote them: accepted, refused 503, asked with no answer recorded.
  await database.query(
    `INSERT INTO recovery_attempts (webhook_id, event_name, report_day, reason, attempted_at,
       outcome, http_status, provider_status, description)
     VALUES (501, 'NPPReceivePayment', '2026-11-27', 'error', now() - interval '2 minutes',
             'resent', 200, 'Ok', 'Resent'),
            (502, 'NPPReceivePayment', '2026-11-27', 'missing', now() - interval '2 minutes',
             'failed', 503, NULL, 'Service unavailable'),
            (503, NULL, '2026-11-27', 'error', now() - interval '2 minutes',
             'failed', NULL, NULL, 'asked for; no answer recorded (the run stopped before it came)')`,
  );
  before = await rows();
  const { error } = await createMigrator(database.db).migrateTo(RESULTS);
  if (error) throw error;
});
afterAll(() => database?.drop());

describe('upgrading to 2026-11-28T03-00-00 (what the report said at each resend)', () => {
  it('when migrated, then the rows written before are unchanged and hold nulls in the new columns', async () => {
    expect(await rows()).toEqual(before);
    const added = await database.query(
      'SELECT report_retry_count, report_last_retry FROM recovery_attempts ORDER BY id',
    );
    expect(added).toEqual(Array(3).fill({ report_retry_count: null, report_last_retry: null }));
  });

  it('when the new code reads them, then an old accepted resend waits out the spacing and failed calls are retried at once', async () => {
    const attempts = createAttemptsRepository(withProviderTables(database.db));
    const history = await attempts.history(['501', '502', '503']);
    const moved = { retryCount: 4, lastRetryDateTime: '11/28/2026 1:00:00 PM' };
    const decide = (id: string) => decideResend(history.get(id), moved, policy, new Date());
    expect([decide('501'), decide('502'), decide('503')]).toEqual([
      { action: 'wait', why: 'spacing' },
      { action: 'resend', why: 'call-failed' },
      { action: 'resend', why: 'call-failed' },
    ]);
  });

  it('when a resend is recorded after the upgrade, then what the report said is kept beside it', async () => {
    const attempts = createAttemptsRepository(withProviderTables(database.db));
    await attempts.begin({
      webhookId: '501',
      eventName: 'NPPReceivePayment',
      reportDay: '2026-11-27',
      reason: 'error',
      attemptedAt: new Date(),
      reportRetryCount: 1,
      reportLastRetry: '11/28/2026 1:00:00 PM',
    });
    const last = (await attempts.history(['501'])).get('501');
    expect(last).toMatchObject({
      attempts: 2,
      lastOutcome: 'failed',
      lastHttpStatus: null,
      reportRetryCount: 1,
      reportLastRetry: '11/28/2026 1:00:00 PM',
    });
  });
});
