import { describe, expect, it } from 'vitest';
import { parseJsonKeepingLongIntegers } from '../../../src/lib/long-integer-json.ts';
import { payIdResponse } from '../../../src/platform/client/responses/payid.ts';
import { readPaytoReport } from '../../../src/platform/client/responses/payto-report.ts';
import { refundResponse } from '../../../src/platform/client/responses/refund.ts';
import { deliveryReportResponse } from '../../../src/platform/client/responses/subscriptions.ts';

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
