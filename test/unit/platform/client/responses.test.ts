import { describe, expect, it } from 'vitest';
import { parseJsonKeepingLongIntegers } from '../../../../src/lib/long-integer-json.ts';
import { payIdResponse } from '../../../../src/platform/client/responses/payid.ts';
import { readPaytoReport } from '../../../../src/platform/client/responses/payto-report.ts';
import { refundResponse } from '../../../../src/platform/client/responses/refund.ts';
import { deliveryReportResponse } from '../../../../src/platform/client/responses/subscriptions.ts';

describe('lenient response parsing', () => {
  it('when a webhookId has 19 digits, then it is kept exactly as text (never a rounded double)', () => {
    const text =
      '{"notifications":[{"webhookId":9223372036854775807,"note":"9223372036854775807","x":1.5e300}]}';
    const parsed = deliveryReportResponse.parse(parseJsonKeepingLongIntegers(text));
    expect(parsed.notifications[0]?.webhookId).toBe('9223372036854775807');
    expect(parsed.notifications[0]).toMatchObject({ note: '9223372036854775807', x: 1.5e300 });
  });

  it('when the PayID answer is the public PascalCase form with Status, then it reads as the interface form', () => {
    const parsed = payIdResponse.parse({
      BankAccountNumber: '12345678',
      PayIdName: 'Shop',
      Status: 'Enable',
    });
    expect(parsed).toMatchObject({
      bankAccountNumber: '12345678',
      payIdName: 'Shop',
      payIdStatus: 'Enable',
    });
  });

  it('when a refund answers transactionId as a number and fees as numbers, then they become text and decimal strings', () => {
    const parsed = refundResponse.parse({
      transactionId: 1234,
      feeAmountIncludingGst: 0.66,
      feeAmountGstComponent: 'x',
    });
    expect(parsed).toMatchObject({ transactionId: '1234', feeAmountIncludingGst: '0.66' });
    expect(parsed.feeAmountGstComponent).toBeUndefined();
  });

  it('when the public PayID answer carries the envelope status before the PayID Status, then each is read by its own spelling', () => {
    const answer = { status: 'Ok', BankAccountNumber: '12345678', Status: 'Disable' };
    expect(payIdResponse.parse(answer)).toMatchObject({ payIdStatus: 'Disable' });
    expect(payIdResponse.parse({ Status: 'Port', status: 'Ok' })).toMatchObject({
      payIdStatus: 'Port',
    });
  });

  it('when the PayTo report is CSV with a header, then columns are matched by name (quoted commas kept)', () => {
    const csv =
      'Transaction ID,DateTime,Amount,RemitterName\r\nT1,2026-11-22T10:00:00,12.50,"Smith, J ""JJ"""\r\nT2,2026-11-22T11:00:00,3\r\n';
    const report = readPaytoReport(undefined, csv);
    expect(report.receipts.map((r) => [r.transactionId, r.amount])).toEqual([['T1', '12.5']]);
    expect(report.receipts[0]?.columns.RemitterName).toBe('Smith, J "JJ"');
    // T2 has three cells under a four-column header: reported, not mapped by guess.
    expect(report.problems).toEqual([
      { row: 2, reason: '3 cells where the header has 4 columns', raw: 'T2,2026-11-22T11:00:00,3' },
    ]);
    expect(report.rows).toBe(2);
  });

  it('when the PayTo report is JSON rows without a header, then the published column order applies to full rows and short ones are reported', () => {
    const full = ['P1', '77', '2026-11-22T09:00:00', '062-000', '12345678', 'Acme', '', '', '', '']
      .concat(
        ['250.00'],
        Array.from({ length: 21 }, () => ''),
      )
      .join(',');
    const short = 'P2,77,2026-11-22T09:00:00,062-000,12345678,Acme,,,,,250.00';
    const report = readPaytoReport({ ndeFileDetails: [full, short] }, '');
    expect(report.receipts).toHaveLength(1);
    expect(report.receipts[0]).toMatchObject({
      transactionId: 'P1',
      amount: '250',
      dateTime: '2026-11-22T09:00:00',
    });
    expect(report.problems).toEqual([
      { row: 2, reason: '11 cells where the header has 32 columns', raw: short },
    ]);
  });

  it('when the PayTo report repeats a transaction id or has none, then those rows are reported and skipped', () => {
    const csv = 'Transaction ID,Amount\nT1,1.00\nT1,1.00\n,2.00\n';
    const report = readPaytoReport(undefined, csv);
    expect(report.receipts.map((r) => r.transactionId)).toEqual(['T1']);
    expect(report.problems.map((p) => [p.row, p.reason])).toEqual([
      [2, 'repeats the Transaction ID of row 1'],
      [3, 'no Transaction ID'],
    ]);
  });
});

describe('the PayTo report read as CSV (csv-parse)', () => {
  it('when a quote is never closed, then the rows before it are receipts and the rest is one reported row, not the end of the run', () => {
    const csv =
      'Transaction ID,Amount,Note\nT1,1.00,5" screen\nT2,2.00,"a ""b"", c"\r\nT3,3.00,"open\nT4,4.00,x\n';
    const report = readPaytoReport(undefined, csv);
    expect(report.receipts.map((r) => [r.transactionId, r.columns.Note])).toEqual([
      ['T1', '5" screen'],
      ['T2', 'a "b", c'],
    ]);
    expect(report.problems).toEqual([
      {
        row: 3,
        reason: expect.stringMatching(/^not readable as CSV: Quote Not Closed/),
        raw: 'T3,3.00,"open\nT4,4.00,x\n',
      },
    ]);
    expect(report.rows).toBe(3);
  });

  it('when a JSON row holds a quote never closed, then that row alone is reported', () => {
    const full = ['P1', ...Array.from({ length: 31 }, () => '')].join(',');
    const report = readPaytoReport({ ndeFileDetails: ['P0,"open', full] }, '');
    expect(report.receipts.map((r) => r.transactionId)).toEqual(['P1']);
    expect(report.problems).toEqual([
      { row: 1, reason: expect.stringMatching(/^not readable as CSV/), raw: 'P0,"open' },
    ]);
  });

  it('when the CSV starts with a byte order mark and mixes CRLF and LF, then the header and rows read the same', () => {
    const report = readPaytoReport(
      undefined,
      '\uFEFFTransaction ID,Amount\r\nT1,1.00\nT2,2\r\n\r\n',
    );
    expect(report.receipts.map((r) => [r.transactionId, r.amount])).toEqual([
      ['T1', '1'],
      ['T2', '2'],
    ]);
    expect(Object.keys(report.receipts[0]?.columns ?? {})).toEqual(['Transaction ID', 'Amount']);
  });
});
