import type { ProviderClient } from './provider-client.ts';
import { ProviderError } from './provider-error.ts';
import { paytoDayStamp } from './requests/payto-report.ts';
import type { PaytoReceipt } from './responses/payto-report.ts';
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

/** Every PayTo receipt of a Sydney day (`YYYY-MM-DD`). */
export function readPaytoReceipts(
  client: ProviderClient,
  day: string,
  options: PageOptions = {},
): Promise<PaytoReceipt[]> {
  return readPages('payto-report', options, 1000, async (skip, take) => {
    const answer = await client.paytoReport({
      date: paytoDayStamp(day),
      skip: String(skip),
      take: String(take),
    });
    return answer.receipts;
  });
}
