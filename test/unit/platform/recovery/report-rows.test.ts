import { describe, expect, it } from 'vitest';
import type { ProviderClient } from '../../../../src/platform/client/provider-client.ts';
import { paytoReportPages } from '../../../../src/platform/client/report-pages.ts';
import { parseJsonKeepingLongIntegers } from '../../../../src/lib/long-integer-json.ts';
import { readPaytoReport } from '../../../../src/platform/client/responses/payto-report.ts';
import {
  deliveryReportResponse,
  usableNotification,
} from '../../../../src/platform/client/responses/subscriptions.ts';
import { storableText } from '../../../../src/platform/recovery/row-problems.ts';

const rowsOf = (json: string) =>
  deliveryReportResponse.parse(parseJsonKeepingLongIntegers(`{"notifications":${json}}`))
    .notifications;

describe('delivery report rows, one by one', () => {
  it('when a row is not an object, then it is kept in its place (pages count every row) and reported', () => {
    const rows = rowsOf('[{"webhookId":1},null,"x",{"webhookId":2}]');
    expect(rows).toHaveLength(4);
    expect(rows.map((row) => usableNotification(row).usable)).toEqual([true, false, false, true]);
    expect(usableNotification(rows[1]!)).toEqual({
      usable: false,
      reason: 'the row is not a JSON object',
      raw: 'null',
    });
  });

  it.each([
    ['"12ab"', 'webhookId is not 1-19 digits'],
    ['"-5"', 'webhookId is not 1-19 digits'],
    ['12.5', 'webhookId is not 1-19 digits'],
    ['"12345678901234567890"', 'webhookId is not 1-19 digits'],
    ['9999999999999999999', 'webhookId is beyond the int64 range'],
    ['"9223372036854775808"', 'webhookId is beyond the int64 range'],
    ['"7\\u0000"', 'a control character in webhookId'],
    ['null', 'no webhookId'],
    ['{"a":1}', 'no webhookId'],
  ])('when webhookId is %s, then the row is not usable: %s', (id, reason) => {
    const [row] = rowsOf(`[{"webhookId":${id},"status":"Error"}]`);
    expect(usableNotification(row!)).toMatchObject({ usable: false, reason });
  });

  it('when any text field holds a control character, then the row is not usable, naming the field', () => {
    const [row] = rowsOf(
      '[{"webhookId":"7","url":"https://x/\\u001b[0m","extra":{"note":"a\\u0085"}}]',
    );
    expect(usableNotification(row!)).toMatchObject({
      usable: false,
      reason: 'a control character in url',
    });
    const [nested] = rowsOf('[{"webhookId":"7","extra":{"note":"a\\u0085"}}]');
    expect(usableNotification(nested!)).toMatchObject({
      reason: 'a control character in extra.note',
    });
  });

  it('when webhookId is int64 max or has leading zeros, then it is usable in canonical form', () => {
    const [max, padded] = rowsOf('[{"webhookId":9223372036854775807},{"webhookId":"0042"}]');
    expect(usableNotification(max!)).toMatchObject({ webhookId: '9223372036854775807' });
    expect(usableNotification(padded!)).toMatchObject({ webhookId: '42' });
  });

  it('when a row is long, then its raw text is cut to 500 characters with webhookId first', () => {
    const [row] = rowsOf(`[{"url":"${'u'.repeat(2000)}","webhookId":"1x"}]`);
    const read = usableNotification(row!);
    expect(read.usable).toBe(false);
    if (!read.usable) {
      expect(read.raw).toHaveLength(500);
      expect(read.raw.startsWith('{"webhookId":"1x"')).toBe(true);
    }
  });
});

describe('text stored with a problem', () => {
  it('when it holds NUL or is long, then NUL becomes U+FFFD and it is cut without half a surrogate pair', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('x'.repeat(600))).toHaveLength(500);
    expect(storableText(`${'x'.repeat(499)}😀`)).toBe('x'.repeat(499));
  });
});

describe('PayTo report pages', () => {
  it('when a Transaction ID repeats on a later page, then it is a problem with its row number across the day', async () => {
    const row = (id: string) => [id, ...Array.from({ length: 31 }, () => '')].join(',');
    const answers: Record<string, string[]> = {
      '0': [row('A'), 'short,row', row('B')],
      '3': [row('C'), row('A')],
    };
    const client = {
      paytoReport: ({ skip }: { skip: string }) =>
        Promise.resolve({ ...readPaytoReport({ ndeFileDetails: answers[skip] ?? [] }, '') }),
    } as unknown as ProviderClient;
    const pages = [];
    for await (const page of paytoReportPages(client, '2026-11-22', { pageSize: 3, maxPages: 5 })) {
      pages.push(page);
    }
    expect(pages.map((p) => [p.page, p.skip, p.rows, p.last])).toEqual([
      [1, 0, 3, false],
      [2, 3, 2, true],
    ]);
    expect(pages.flatMap((p) => p.content.receipts.map((r) => [r.row, r.transactionId]))).toEqual([
      [1, 'A'],
      [3, 'B'],
      [4, 'C'],
    ]);
    expect(pages.flatMap((p) => p.content.problems.map((r) => [r.row, r.reason]))).toEqual([
      [2, '2 cells where the header has 32 columns'],
      [5, 'repeats the Transaction ID of row 1'],
    ]);
  });
});
