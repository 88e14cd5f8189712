import { sql } from 'kysely';
import type { ProviderDb } from '../storage/tables.ts';
import type { Lease } from '../../lib/database/lease.ts';
import type { LastResend } from './resend-decision.ts';
import { storableText } from './row-problems.ts';

/**
 * What recovery knows about notifications: which Webhookids are stored or quarantined here, and
 * which resends were already asked for. Every query takes a whole page's ids at once; ids are
 * canonical int64 digits (see usableNotification), so the `bigint[]` casts cannot fail.
 */
/** Each notification's resends so far, and the last one's answer (see resend-decision.ts). */
export type AttemptHistory = LastResend;

export interface NewAttempt {
  webhookId: string;
  eventName: string | undefined;
  reportDay: string;
  reason: 'error' | 'missing';
  attemptedAt: Date;
  /** What the report row said when the resend was asked for (undefined: not given). */
  reportRetryCount: number | undefined;
  reportLastRetry: string | undefined;
}

export interface AttemptAnswer {
  outcome: 'resent' | 'failed';
  httpStatus?: number | undefined;
  providerStatus?: string | undefined;
  description?: string | undefined;
}

const nullableText = (text: string | undefined, limit: number) =>
  text === undefined ? null : storableText(text, limit);

export function createAttemptsRepository(db: ProviderDb) {
  return {
    async storedWebhookIds(ids: readonly string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select('webhook_id')
        .where('webhook_id', '=', sql<string>`ANY(${[...ids]}::bigint[])`)
        .execute();
      return new Set(rows.map((row) => String(row.webhook_id)));
    },

    async quarantinedWebhookIds(ids: readonly string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom('quarantined_deliveries')
        .select('webhook_id')
        .where('webhook_id', '=', sql<string>`ANY(${[...ids]}::bigint[])`)
        .execute();
      return new Set(rows.map((row) => String(row.webhook_id)));
    },

    /** Per Webhookid: how many resends so far, and the latest one (by time, then id). */
    async history(ids: readonly string[]): Promise<Map<string, AttemptHistory>> {
      if (ids.length === 0) return new Map();
      const { rows } = await sql<{
        webhook_id: string;
        attempts: string;
        attempted_at: Date;
        outcome: 'resent' | 'failed';
        http_status: number | null;
        report_retry_count: number | null;
        report_last_retry: string | null;
      }>`
        SELECT DISTINCT ON (webhook_id) webhook_id,
               count(*) OVER (PARTITION BY webhook_id) AS attempts,
               attempted_at, outcome, http_status, report_retry_count, report_last_retry
          FROM recovery_attempts
         WHERE webhook_id = ANY(${[...ids]}::bigint[])
         ORDER BY webhook_id, attempted_at DESC, id DESC`.execute(db);
      return new Map(
        rows.map((row) => [
          String(row.webhook_id),
          {
            attempts: Number(row.attempts),
            lastAttemptAt: row.attempted_at,
            lastOutcome: row.outcome,
            lastHttpStatus: row.http_status,
            reportRetryCount: row.report_retry_count,
            reportLastRetry: row.report_last_retry,
          },
        ]),
      );
    },

    /**
     * Records a resend about to be asked for, before it is sent, as `failed` with "no answer
     * recorded" until `finish` writes the answer: a resend is never made without a record, so
     * the limit and the spacing hold even when the process dies mid-call. With a lease, the
     * row is written only while the lease is ours (and the lease is renewed in the same
     * statement); undefined means it is not, and nothing may be sent.
     */
    async begin(attempt: NewAttempt, lease?: Pick<Lease, 'name' | 'holder' | 'ttlMs'>) {
      const values = {
        webhook_id: attempt.webhookId,
        event_name: nullableText(attempt.eventName, 1000),
        report_day: attempt.reportDay,
        reason: attempt.reason,
        attempted_at: attempt.attemptedAt,
        outcome: 'failed' as const,
        http_status: null,
        provider_status: null,
        description: 'asked for; no answer recorded (the run stopped before it came)',
        report_retry_count: attempt.reportRetryCount ?? null,
        report_last_retry: nullableText(attempt.reportLastRetry, 200),
      };
      if (lease === undefined) {
        const row = await db
          .insertInto('recovery_attempts')
          .values(values)
          .returning('id')
          .executeTakeFirstOrThrow();
        return String(row.id);
      }
      const { rows } = await sql<{ id: string }>`
        WITH held AS (
          UPDATE leases
             SET expires_at = greatest(expires_at,
                   clock_timestamp() + ${lease.ttlMs}::float8 * interval '1 millisecond')
           WHERE name = ${lease.name} AND holder = ${lease.holder}
          RETURNING name
        )
        INSERT INTO recovery_attempts
          (webhook_id, event_name, report_day, reason, attempted_at, outcome, description,
           report_retry_count, report_last_retry)
        SELECT ${values.webhook_id}::bigint, ${values.event_name}, ${values.report_day}::date,
               ${values.reason}, ${values.attempted_at}::timestamptz, ${values.outcome},
               ${values.description}, ${values.report_retry_count}::integer,
               ${values.report_last_retry}
          FROM held
        RETURNING id`.execute(db);
      return rows[0] === undefined ? undefined : String(rows[0].id);
    },

    /** The answer to a resend recorded by `begin`. */
    async finish(id: string, answer: AttemptAnswer): Promise<void> {
      await db
        .updateTable('recovery_attempts')
        .set({
          outcome: answer.outcome,
          http_status: answer.httpStatus ?? null,
          provider_status: nullableText(answer.providerStatus, 200),
          description: nullableText(answer.description, 1000),
        })
        .where('id', '=', id)
        .execute();
    },
  };
}

export type AttemptsRepository = ReturnType<typeof createAttemptsRepository>;
