import { describe, expect, it } from 'vitest';
import { parseJsonKeepingLongIntegers } from '../../../src/provider/responses/json-text.ts';
import { payIdResponse } from '../../../src/provider/responses/payid.ts';
import { readPaytoReport } from '../../../src/provider/responses/payto-report.ts';
import { refundResponse } from '../../../src/provider/responses/refund.ts';
import { deliveryReportResponse } from '../../../src/provider/responses/subscriptions.ts';

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

  it('when the PayTo report is CSV with a header, then columns are matched by name (quoted commas kept)', () => {
    const csv =
      'Transaction ID,DateTime,Amount,RemitterName\r\nT1,2026-11-22T10:00:00,12.50,"Smith, J ""JJ"""\r\nT2,2026-11-22T11:00:00,3\r\n';
    const rows = readPaytoReport(undefined, csv);
    expect(rows.map((r) => [r.transactionId, r.amount])).toEqual([
      ['T1', '12.5'],
      ['T2', '3'],
    ]);
    expect(rows[0]?.columns.RemitterName).toBe('Smith, J "JJ"');
  });

  it('when the PayTo report is JSON rows without a header, then the published column order applies', () => {
    const rows = readPaytoReport(
      { ndeFileDetails: ['P1,77,2026-11-22T09:00:00,062-000,12345678,Acme,,,,,250.00'] },
      '',
    );
    expect(rows[0]).toMatchObject({
      transactionId: 'P1',
      amount: '250',
      dateTime: '2026-11-22T09:00:00',
    });
  });
});
