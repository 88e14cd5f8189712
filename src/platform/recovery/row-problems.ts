import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { ProviderDb, ReportKind } from '../storage/tables.ts';

/**
 * Report rows recovery could not read, in `recovery_row_problems`: one table rather than the
 * run's JSON summary, because a report can hold thousands of odd rows (the summary keeps counts
 * and stays small), an operator looks them up by day and kind, and the same odd row listed on
 * every run of the day is one record with `times_seen` and the last run, not a copy per run.
 */
export interface RowProblem {
  /** 1-based, counting the day's data rows across pages. */
  row: number;
  reason: string;
  raw: string;
}

const RAW_LIMIT = 500;

/**
 * Text Postgres accepts (it refuses NUL in text and `\u0000` in jsonb): NUL becomes U+FFFD, cut
 * to `limit` characters without leaving half a surrogate pair.
 */
export function storableText(text: string, limit = RAW_LIMIT): string {
  let cut = text.replaceAll('\u0000', '\uFFFD').slice(0, limit);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

export function createRowProblemsRepository(db: ProviderDb) {
  return {
    /** Records the problems of one page; one seen before (same row, reason and raw) is counted again. */
    async record(
      runId: string,
      kind: ReportKind,
      day: string,
      problems: readonly RowProblem[],
      now: Date,
    ): Promise<void> {
      if (problems.length === 0) return;
      const byKey = new Map<string, RowProblem & { fingerprint: string }>();
      for (const problem of problems) {
        const reason = storableText(problem.reason);
        const raw = storableText(problem.raw);
        const fingerprint = createHash('sha256').update(`${reason}\n${raw}`).digest('hex');
        // One statement may not touch a row twice (ON CONFLICT): one entry per key.
        byKey.set(`${problem.row}:${fingerprint}`, { row: problem.row, reason, raw, fingerprint });
      }
      await db
        .insertInto('recovery_row_problems')
        .values(
          [...byKey.values()].map((problem) => ({
            report_day: day,
            report_kind: kind,
            row_number: problem.row,
            reason: problem.reason,
            raw: problem.raw,
            fingerprint: problem.fingerprint,
            first_run_id: runId,
            last_run_id: runId,
            first_seen_at: now,
            last_seen_at: now,
          })),
        )
        .onConflict((oc) =>
          oc.constraint('recovery_row_problems_row').doUpdateSet({
            last_run_id: runId,
            last_seen_at: now,
            times_seen: sql<number>`recovery_row_problems.times_seen + 1`,
          }),
        )
        .execute();
    },
  };
}

export type RowProblemsRepository = ReturnType<typeof createRowProblemsRepository>;
