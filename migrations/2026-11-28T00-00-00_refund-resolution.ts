import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// A refund in doubt (the platform may have paid it; no answer says so) is settled by the
// platform's own answer or by an operator who records who confirmed the outcome and on what
// evidence (`npm run provider -- refund-resolve`). The three columns are set together or not at
// all, and only on a settled refund (`succeeded` or `failed`): a resolution without a name or
// evidence, or on a refund still in doubt, cannot be written. Rows written before this
// migration have none, which the constraint allows; the previous release, still running during
// a rolling upgrade, never names these columns, so its statements keep working.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('refunds')
    .addColumn('resolved_by', 'text', (c) => c.check(sql`length(resolved_by) BETWEEN 1 AND 200`))
    .addColumn('resolved_at', 'timestamptz')
    .addColumn('resolution_evidence', 'text', (c) =>
      c.check(sql`length(resolution_evidence) BETWEEN 1 AND 2000`),
    )
    .execute();
  await sql`
    ALTER TABLE refunds ADD CONSTRAINT refunds_resolution_complete CHECK (
      (resolved_by IS NULL AND resolved_at IS NULL AND resolution_evidence IS NULL)
      OR (resolved_by IS NOT NULL AND resolved_at IS NOT NULL AND resolution_evidence IS NOT NULL
          AND state IN ('succeeded', 'failed'))
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE refunds DROP CONSTRAINT refunds_resolution_complete`.execute(db);
  await db.schema
    .alterTable('refunds')
    .dropColumn('resolved_by')
    .dropColumn('resolved_at')
    .dropColumn('resolution_evidence')
    .execute();
}
