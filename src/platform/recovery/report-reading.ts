import type { PageRange, ReportPage } from '../client/report-pages.ts';
import type { ReportKind } from '../storage/tables.ts';
import { LeaseLostError, type Lease } from '../../lib/database/lease.ts';
import type { RowProblemsRepository } from './row-problems.ts';
import type { RunsRepository } from './runs-repository.ts';

/**
 * How a run reads one day's report: in pages, at most `maxPages` of them, each acted on as it
 * arrives. By default a day is read in passes that may span runs: the run goes on from the row
 * where the last run's page budget ran out (`recovery_progress`), saving its position after each
 * page, and a pass read to its end starts over from row 1 on the next run. So a report too long
 * for one run is finished by the next ones, and the pages already read are never thrown away,
 * even when a later page cannot be read. A page whose rows are not all acted on (the run's resend
 * budget ran out on it) ends the reading, and the position saved is that page's first row. With
 * `fromPage` (the command's `--from-page`) exactly
 * those pages are read and the stored position is left alone.
 */
interface PagePlan {
  /** 1-based first page to read; undefined: go on from the stored position. */
  fromPage: number | undefined;
  /** Most pages of each report read in this run. */
  maxPages: number;
  pageSize: number;
}

/** What one run shares with every report it reads. */
export interface RunContext {
  runId: string;
  runs: RunsRepository;
  problems: RowProblemsRepository;
  now: () => Date;
  pages: PagePlan;
  lease?: Lease | undefined;
  /** A line of progress for a person watching (the command's stderr). */
  say?: ((line: string) => void) | undefined;
}

/** One report of one day as this run read it, in the run's summary. */
export interface ReportReading {
  day: string;
  kind: ReportKind;
  /** First page read (1-based). */
  fromPage: number;
  pagesRead: number;
  rowsRead: number;
  /** Read to the end of the day's report. */
  complete: boolean;
  /** Not complete: the page the next run goes on from (absent for an explicit range). */
  resumesAtPage?: number;
  /**
   * Stopped on a page with rows left for a later run (the run's resend budget was spent): the
   * next run reads that page again.
   */
  stoppedOnBudget?: boolean;
}

/**
 * What a page's handler says: a line for the person watching, and whether rows of the page were
 * left for a later run. Such a page is not fully acted on: reading stops there and the position
 * saved is the page's first row, so the next run acts on what this one could not.
 */
export type PageOutcome = string | { say: string; rowsLeftForLater: true };

export const newReading = (day: string, kind: ReportKind): ReportReading => ({
  day,
  kind,
  fromPage: 1,
  pagesRead: 0,
  rowsRead: 0,
  complete: false,
});

const LABEL: Record<ReportKind, string> = { delivery: 'delivery report', payto: 'PayTo report' };

export async function readReportInPages<T>(
  run: RunContext,
  reading: ReportReading,
  source: (range: PageRange) => AsyncGenerator<ReportPage<T>, void, undefined>,
  handle: (page: ReportPage<T>) => Promise<PageOutcome>,
): Promise<void> {
  const { day, kind } = reading;
  const { pageSize, maxPages, fromPage } = run.pages;
  const explicit = fromPage !== undefined;
  const startSkip = explicit ? (fromPage - 1) * pageSize : await run.runs.resumeAt(day, kind);
  let nextSkip = startSkip;
  reading.fromPage = Math.floor(startSkip / pageSize) + 1;
  if (!explicit && startSkip > 0) {
    run.say?.(
      `${day}: ${LABEL[kind]} goes on from page ${reading.fromPage} (row ${startSkip + 1})`,
    );
  }
  for await (const page of source({ startSkip, pageSize, maxPages })) {
    if (run.lease?.lost) throw new LeaseLostError(run.lease);
    const outcome = await handle(page);
    const status = typeof outcome === 'string' ? outcome : outcome.say;
    reading.pagesRead += 1;
    reading.rowsRead += page.rows;
    const rows = page.rows === 0 ? 'no rows' : `rows ${page.skip + 1}-${page.skip + page.rows}`;
    if (typeof outcome !== 'string') {
      // Only pages fully acted on are behind the saved position (issue 24): never past this one.
      reading.stoppedOnBudget = true;
      // The position saved after the page before (or the one this run started from) is this
      // page's first row already: nothing to write.
      if (!explicit) reading.resumesAtPage = page.page;
      run.say?.(
        `${day}: ${LABEL[kind]} page ${page.page} (${rows}): ${status}; resend budget spent: ` +
          (explicit ? 'stopped here' : `stopped here; the next run goes on from page ${page.page}`),
      );
      return;
    }
    nextSkip = page.skip + page.rows;
    if (page.last) reading.complete = true;
    if (!explicit) {
      if (page.last) await run.runs.passComplete(day, kind);
      else await run.runs.saveProgress(day, kind, nextSkip, run.now());
    }
    run.say?.(
      `${day}: ${LABEL[kind]} page ${page.page} (${rows}${page.last ? ', the last' : ''}): ${status}`,
    );
  }
  if (!reading.complete && reading.pagesRead > 0) {
    const next = Math.floor(nextSkip / pageSize) + 1;
    if (!explicit) reading.resumesAtPage = next;
    run.say?.(
      explicit
        ? `${day}: ${LABEL[kind]} read to page ${next - 1} as asked; it goes on beyond`
        : `${day}: ${LABEL[kind]} page budget (${maxPages}) spent; the next run goes on from page ${next}`,
    );
  }
}
