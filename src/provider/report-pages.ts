import type { ProviderClient } from './provider-client.ts';
import { ProviderError } from './provider-error.ts';
import { paytoDayStamp } from './requests/payto-report.ts';
import type { PaytoReceipt, ReportRowProblem } from './responses/payto-report.ts';
import type { ReportedNotification } from './responses/subscriptions.ts';

/**
 * Whole reports, read page by page (`skip` / `take`) until a short page. Bounded: at most
 * `maxPages` pages, so a platform that keeps answering full pages cannot keep us reading forever.
 */
export interface PageOptions {
  pageSize?: number;
  maxPages?: number;
  onPage?: (page: number, rows: number) => void;
}

async function readPages<T>(
  endpoint: string,
  options: PageOptions,
  defaultSize: number,
  readPage: (skip: number, take: number) => Promise<T[]>,
): Promise<T[]> {
  const take = options.pageSize ?? defaultSize;
  const maxPages = options.maxPages ?? 100;
  const rows: T[] = [];
  for (let page = 1; page <= maxPages; page += 1) {
    const batch = await readPage(rows.length, take);
    rows.push(...batch);
    options.onPage?.(page, rows.length);
    if (batch.length < take) return rows;
  }
  throw new ProviderError({
    endpoint,
    kind: 'invalid-response',
    statusDescription: `report longer than ${maxPages} pages of ${take}; read it in parts`,
  });
}

/** Every notification the platform sent on a Sydney day (`YYYY-MM-DD`). */
export function readDeliveryReport(
  client: ProviderClient,
  day: string,
  options: PageOptions = {},
): Promise<ReportedNotification[]> {
  return readPages('delivery-report', options, 1000, async (skip, take) => {
    const answer = await client.deliveryReport({ date: day, skip, take });
    return answer.notifications;
  });
}

/** Every PayTo receipt of a Sydney day (`YYYY-MM-DD`), and the rows that could not be read. */
export async function readPaytoReceipts(
  client: ProviderClient,
  day: string,
  options: PageOptions = {},
): Promise<{ receipts: PaytoReceipt[]; problems: ReportRowProblem[] }> {
  const problems: ReportRowProblem[] = [];
  const pages = await readPages('payto-report', options, 1000, async (skip, take) => {
    const answer = await client.paytoReport({
      date: paytoDayStamp(day),
      skip: String(skip),
      take: String(take),
    });
    // Row numbers across the whole day, so an operator can find the row.
    problems.push(...answer.problems.map((p) => ({ ...p, row: p.row + skip })));
    // One slot per row, readable or not, so paging counts what the platform counted.
    return [
      ...answer.receipts,
      ...Array.from({ length: answer.rows - answer.receipts.length }, () => undefined),
    ];
  });
  return { receipts: pages.filter((r) => r !== undefined), problems };
}
