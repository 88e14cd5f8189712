import type { ProviderDb, ReportKind } from '../storage/tables.ts';

/**
 * Recovery's own records: each run in `recovery_runs` (written when it starts, completed when it
 * ends, so a run that fails part-way or whose process dies is on record too), and where each
 * day's reports are to be read from next in `recovery_progress`.
 */
export function createRunsRepository(db: ProviderDb) {
  return {
    async start(run: {
      startedAt: Date;
      days: readonly string[];
      holder: string | undefined;
    }): Promise<string> {
      const row = await db
        .insertInto('recovery_runs')
        .values({
          started_at: run.startedAt,
          finished_at: null,
          days: [...run.days],
          ok: false,
          summary: JSON.stringify({ running: true }),
          holder: run.holder ?? null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return String(row.id);
    },

    async finish(id: string, run: { finishedAt: Date; ok: boolean; summary: string }) {
      await db
        .updateTable('recovery_runs')
        .set({ finished_at: run.finishedAt, ok: run.ok, summary: run.summary })
        .where('id', '=', id)
        .execute();
    },

    /** Rows of the day's report already read in the current pass (0: start a new pass). */
    async resumeAt(day: string, kind: ReportKind): Promise<number> {
      const row = await db
        .selectFrom('recovery_progress')
        .select('next_skip')
        .where('report_day', '=', day)
        .where('report_kind', '=', kind)
        .executeTakeFirst();
      return row?.next_skip ?? 0;
    },

    /** The next run goes on from row `nextSkip` of the day. */
    async saveProgress(day: string, kind: ReportKind, nextSkip: number, now: Date): Promise<void> {
      await db
        .insertInto('recovery_progress')
        .values({
          report_day: day,
          report_kind: kind,
          next_skip: nextSkip,
          pass_started_at: now,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc
            .columns(['report_day', 'report_kind'])
            .doUpdateSet({ next_skip: nextSkip, updated_at: now }),
        )
        .execute();
    },

    /** The day's report was read to its end: the next run starts a new pass from row 1. */
    async passComplete(day: string, kind: ReportKind): Promise<void> {
      await db
        .deleteFrom('recovery_progress')
        .where('report_day', '=', day)
        .where('report_kind', '=', kind)
        .execute();
    },
  };
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
