import type { ProviderClient } from './provider-client.ts';
import { ProviderError } from './protocol/provider-error.ts';
import { paytoDayStamp } from './requests/payto-report.ts';
import type { PaytoReceipt, ReportRowProblem } from './responses/payto-report.ts';
import { ROW_RAW_LIMIT, type ReportedNotification } from './responses/subscriptions.ts';

/**
 * Reports read page by page (`skip` / `take`) until a short page. Always bounded: at most
 * `maxPages` pages per read (and each answer by its endpoint's byte cap), so a platform that
 * keeps answering full pages cannot keep us reading forever. `deliveryReportPages` and
 * `paytoReportPages` hand over each page as it arrives, from any row of the day, so a caller can
 * act on what it has read and go on later from where it stopped; `readDeliveryReport` reads
 * a whole day or fails.
 */
export interface PageOptions {
  pageSize?: number;
  maxPages?: number;
  onPage?: (page: number, rows: number) => void;
}

export const DEFAULT_PAGE_SIZE = 1000;
export const DEFAULT_MAX_PAGES = 100;

/** Which part of a day's report to read. */
export interface PageRange {
  /** Rows of the day before the first row read (default 0). */
  startSkip?: number;
  /** Rows per page (default 1000, the platform's largest `take`). */
  pageSize?: number;
  /** Most pages read (default 100). */
  maxPages?: number;
}

export interface ReportPage<T> {
  /** 1-based: the page of the day this is when the day is read in pages of `take` rows. */
  page: number;
  skip: number;
  take: number;
  /** Rows in the answer, readable or not (what `take` counts). */
  rows: number;
  /** Fewer rows than asked for: the day's report ends with this page. */
  last: boolean;
  content: T;
}

async function* pages<T>(
  range: PageRange,
  readPage: (skip: number, take: number) => Promise<{ rows: number; content: T }>,
): AsyncGenerator<ReportPage<T>, void, undefined> {
  const take = range.pageSize ?? DEFAULT_PAGE_SIZE;
  const maxPages = range.maxPages ?? DEFAULT_MAX_PAGES;
  let skip = range.startSkip ?? 0;
  for (let read = 0; read < maxPages; read += 1) {
    const { rows, content } = await readPage(skip, take);
    const last = rows < take;
    yield { page: Math.floor(skip / take) + 1, skip, take, rows, last, content };
    if (last) return;
    skip += rows;
  }
}

/** The delivery report of a Sydney day (`YYYY-MM-DD`), page by page; every row kept, in order. */
export function deliveryReportPages(
  client: ProviderClient,
  day: string,
  range: PageRange = {},
): AsyncGenerator<ReportPage<{ notifications: ReportedNotification[] }>, void, undefined> {
  return pages(range, async (skip, take) => {
    const answer = await client.deliveryReport({ date: day, skip, take });
    return { rows: answer.notifications.length, content: { notifications: answer.notifications } };
  });
}

export interface NumberedReceipt extends PaytoReceipt {
  /** 1-based, counting the day's data rows across pages. */
  row: number;
}

/**
 * The PayTo report of a Sydney day, page by page: receipts and the rows that could not be read,
 * numbered across the day. A Transaction ID listed again on a later page of the same read is a
 * problem too (as the reader makes it within one answer): storing both would be a guess.
 */
export function paytoReportPages(
  client: ProviderClient,
  day: string,
  range: PageRange = {},
): AsyncGenerator<
  ReportPage<{ receipts: NumberedReceipt[]; problems: ReportRowProblem[] }>,
  void,
  undefined
> {
  const firstRowOf = new Map<string, number>();
  return pages(range, async (skip, take) => {
    const answer = await client.paytoReport({
      date: paytoDayStamp(day),
      skip: String(skip),
      take: String(take),
    });
    const problems = answer.problems.map((p) => ({ ...p, row: p.row + skip }));
    // The reader returns readable rows in order and reports the others by number: a receipt's
    // row is the next number no problem holds.
    const problemRows = new Set(problems.map((p) => p.row));
    const receipts: NumberedReceipt[] = [];
    let row = skip;
    for (const receipt of answer.receipts) {
      do row += 1;
      while (problemRows.has(row));
      const earlier = firstRowOf.get(receipt.transactionId);
      if (earlier === undefined) {
        firstRowOf.set(receipt.transactionId, row);
        receipts.push({ ...receipt, row });
      } else {
        problems.push({
          row,
          reason: `repeats the Transaction ID of row ${earlier}`,
          raw: Object.values(receipt.columns).join(',').slice(0, ROW_RAW_LIMIT),
        });
      }
    }
    problems.sort((a, b) => a.row - b.row);
    return { rows: answer.rows, content: { receipts, problems } };
  });
}

/** Reads every page or fails: a report longer than `maxPages` pages is an error. */
async function readAll<T>(
  endpoint: string,
  options: PageOptions,
  source: (range: PageRange) => AsyncGenerator<ReportPage<T>, void, undefined>,
): Promise<T[]> {
  const take = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const contents: T[] = [];
  let rows = 0;
  for await (const page of source({ pageSize: take, maxPages })) {
    contents.push(page.content);
    rows += page.rows;
    options.onPage?.(contents.length, rows);
    if (page.last) return contents;
  }
  throw new ProviderError({
    endpoint,
    kind: 'invalid-response',
    statusDescription: `report longer than ${maxPages} pages of ${take}; read it in parts`,
  });
}

/** Every notification the platform sent on a Sydney day (`YYYY-MM-DD`). */
export async function readDeliveryReport(
  client: ProviderClient,
  day: string,
  options: PageOptions = {},
): Promise<ReportedNotification[]> {
  const contents = await readAll('delivery-report', options, (range) =>
    deliveryReportPages(client, day, range),
  );
  return contents.flatMap((content) => content.notifications);
}
