import { beforeEach, describe, expect, it } from 'vitest';
import { sendDelivery } from '../../support/deliveries.ts';
import { nppPayment, rejectionRecord } from '../../support/sample-bodies.ts';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';
import { useTestbed } from '../../support/testbed.ts';

/**
 * "An odd optional field is never a reason to refuse a payment": a delivery with a readable
 * identifier and amount is stored (200) whatever its optional fields hold; the column is null
 * (the text kept where there is a text column) and the delivery carries warnings.
 */

const bed = useTestbed();
let built: TestApp;

beforeEach(() => {
  built = buildTestApp({ db: bed.database.db, publicKey: bed.signer.publicKey });
});

interface Stored {
  status: number;
  warnings: { path: string; message: string }[];
  logged: unknown;
  outcome: unknown;
}

async function deliver(event: string, body: object): Promise<Stored> {
  const res = await sendDelivery(built.app, { event, body, signWith: bed.signer.privateKey });
  const line = built.logs.findLast((entry) => 'outcome' in entry) ?? {};
  const rows = await bed.database.query<{ warnings: Stored['warnings'] }>(
    'SELECT warnings FROM webhook_deliveries',
  );
  return {
    status: res.status,
    warnings: rows[0]?.warnings ?? [],
    logged: line.warnings,
    outcome: line.outcome,
  };
}

async function payment(): Promise<Record<string, unknown>> {
  const [row] = await bed.database.query('SELECT * FROM npp_payments');
  return row ?? {};
}

describe('NPPReceivePayment: odd optional fields', () => {
  it.each([
    ['11/08/2023 14:19:16', '2023-08-11 14:19:16'],
    ['2023-08-11T14:19', '2023-08-11 14:19:00'],
    ['2023-08-11T14:19:16.1234567890123', '2023-08-11 14:19:16.123456'],
  ])(
    'when DateTime is %j (24-hour, no seconds, a long fraction), then 200 and it is read as %j',
    async (text, local) => {
      const stored = await deliver('NPPReceivePayment', nppPayment({ DateTime: text }));
      expect(stored).toMatchObject({ status: 200, outcome: 'stored', warnings: [] });
      expect(await payment()).toMatchObject({ date_time_local: local, date_time_text: text });
    },
  );

  it('when DateTime is a date alone, then 200, midnight Sydney time, and a warning', async () => {
    const stored = await deliver('NPPReceivePayment', nppPayment({ DateTime: '2023-08-11' }));
    expect(stored.status).toBe(200);
    expect(stored.warnings).toEqual([
      {
        path: 'DateTime',
        message: 'DateTime has no time of day; stored as midnight, Sydney time',
      },
    ]);
    expect(await payment()).toMatchObject({ date_time_local: '2023-08-11 00:00:00' });
  });

  it('when DateTime is an impossible date, then 200, a null time, the text kept and a warning', async () => {
    const text = '31/02/2024 10:00:00 AM';
    const stored = await deliver('NPPReceivePayment', nppPayment({ DateTime: text }));
    expect(stored).toMatchObject({ status: 200, outcome: 'stored' });
    expect(stored.warnings).toEqual([
      { path: 'DateTime', message: expect.stringMatching(/not a real date.*the text is kept$/) },
    ]);
    expect(stored.logged).toEqual(stored.warnings);
    expect(await payment()).toMatchObject({ date_time_local: null, date_time_text: text });
  });

  it.each([
    ['PayId', { email: 'x@example.com' }, 'pay_id'],
    ['RemitterName', false, 'remitter_name'],
    ['RemitterName', 'JANE\u0000CITIZEN', 'remitter_name'],
    ['RemitterName', 'lone \ud800 surrogate', 'remitter_name'],
    ['ReceiptNumber', 5678120.5, 'receipt_number'],
  ])(
    'when %s is %j, then 200, the column is null and the warning is stored and logged',
    async (field, value, column) => {
      const body = nppPayment({ [field]: value, Amount: '12.3400' });
      const stored = await deliver('NPPReceivePayment', body);
      expect(stored).toMatchObject({ status: 200, outcome: 'stored' });
      expect(stored.warnings).toEqual([
        { path: field, message: expect.stringMatching(new RegExp(`^${field} .*stored as null$`)) },
      ]);
      expect(stored.logged).toEqual(stored.warnings);
      expect(await payment()).toMatchObject({ [column]: null, amount: '12.34' });
    },
  );

  it.each([
    [[], 'RefundDetails'],
    [
      { InboundAmount: '10.0000', RefundAmount: 'n/a', RefundId: 'RF1' },
      'RefundDetails.RefundAmount',
    ],
  ])(
    'when RefundDetails is %j, then 200, the unreadable refund columns are null, with a warning at %s',
    async (refund, path) => {
      const stored = await deliver('NPPReceivePayment', nppPayment({ RefundDetails: refund }));
      expect(stored.status).toBe(200);
      expect(stored.warnings.map((warning) => warning.path)).toEqual([path]);
      expect(await payment()).toMatchObject({ refund_amount: null });
    },
  );
});

describe('rejection records and PayToReceivePayment: the same leniency', () => {
  it('when a rejection record has odd optional fields, then 200, nulls and warnings with the record path', async () => {
    const body = [
      rejectionRecord({ id: 'R1' }),
      rejectionRecord({
        id: 'R2',
        dateTime: '11/08/2023 14:19:16',
        payId: { x: 1 },
        withholdingTaxAmount: 'n/a',
      }),
    ];
    const stored = await deliver('InboundDirectCreditRejections', body);
    expect(stored.status).toBe(200);
    expect(stored.warnings.map((warning) => warning.path)).toEqual([
      '[1].payId',
      '[1].withholdingTaxAmount',
    ]);
    const rows = await bed.database.query(
      'SELECT rejection_id, date_time_local, pay_id, withholding_tax_amount FROM credit_rejections ORDER BY rejection_id',
    );
    expect(rows[1]).toEqual({
      rejection_id: 'R2',
      date_time_local: '2023-08-11 14:19:16',
      pay_id: null,
      withholding_tax_amount: null,
    });
  });

  it('when a PayTo payment has odd optional fields, then 200, nulls and warnings', async () => {
    const body = nppPayment({ MmsId: false, DateTime: '11/08/2023 9:05', RefundDetails: [] });
    const stored = await deliver('PayToReceivePayment', body);
    expect(stored.status).toBe(200);
    expect(stored.warnings.map((warning) => warning.path)).toEqual(['MmsId', 'RefundDetails']);
    const [row] = await bed.database.query('SELECT mms_id, date_time_local FROM payto_payments');
    expect(row).toEqual({ mms_id: null, date_time_local: '2023-08-11 09:05:00' });
  });

  it('when the amount is not a number, then the contract still refuses it (400, quarantined)', async () => {
    const stored = await deliver('PayToReceivePayment', nppPayment({ Amount: 'n/a' }));
    expect(stored.status).toBe(400);
    expect(await bed.database.count('quarantined_deliveries')).toBe(1);
    expect(await bed.database.count('webhook_deliveries')).toBe(0);
  });
});
