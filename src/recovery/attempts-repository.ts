import { sql } from 'kysely';
import type { ProviderDb } from '../provider/tables.ts';

/**
 * What recovery knows about notifications: which Webhookids are stored or quarantined here, and
 * which resends were already asked for. Every query takes a whole report's ids at once.
 */
export interface AttemptHistory {
  attempts: number;
  lastAttemptAt: Date;
}

export interface NewAttempt {
  webhookId: string;
  eventName: string | undefined;
  reportDay: string;
  reason: 'error' | 'missing';
  attemptedAt: Date;
  outcome: 'resent' | 'failed';
  httpStatus?: number | undefined;
  providerStatus?: string | undefined;
  description?: string | undefined;
}

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

    async history(ids: readonly string[]): Promise<Map<string, AttemptHistory>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('recovery_attempts')
        .select((eb) => [
          'webhook_id',
          eb.fn.countAll<string>().as('attempts'),
          eb.fn.max('attempted_at').as('last_attempt_at'),
        ])
        .where('webhook_id', '=', sql<string>`ANY(${[...ids]}::bigint[])`)
        .groupBy('webhook_id')
        .execute();
      return new Map(
        rows.map((row) => [
          String(row.webhook_id),
          { attempts: Number(row.attempts), lastAttemptAt: row.last_attempt_at },
        ]),
      );
    },

    async record(attempt: NewAttempt): Promise<void> {
      await db
        .insertInto('recovery_attempts')
        .values({
          webhook_id: attempt.webhookId,
          event_name: attempt.eventName ?? null,
          report_day: attempt.reportDay,
          reason: attempt.reason,
          attempted_at: attempt.attemptedAt,
          outcome: attempt.outcome,
          http_status: attempt.httpStatus ?? null,
          provider_status: attempt.providerStatus ?? null,
          description: attempt.description?.slice(0, 1000) ?? null,
        })
        .execute();
    },
  };
}

export type AttemptsRepository = ReturnType<typeof createAttemptsRepository>;
