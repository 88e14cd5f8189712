import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver as startRealReceiver } from '../../../tools/sandbox/test/receiver.ts';
import { startTestSandbox, subscribe } from '../../../tools/sandbox/test/support.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The sandbox sends InboundDirectCredit as the platform does (one signed batch object per
 * notification, `count` records), over real HTTP, to the real receiver on a real socket, which
 * trusts the sandbox's key endpoint and stores the batch typed.
 */

const SECRET = 'Basic ZGlyZWN0LWNyZWRpdHM=';
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

function startReceiver(keyUrl: string) {
  return startRealReceiver(database.db, keyUrl, [SECRET]);
}

interface Batch {
  TotalCount: number;
  TotalAmount: number;
  DirectCreditDetails: Record<string, unknown>[];
}

describe('the sandbox sends direct credits as the published batch', () => {
  it('when a batch of three is made, then one signed notification carries it and the receiver stores three typed records and the batch', async () => {
    const { url, call } = await startTestSandbox();
    const receiver = await startReceiver(`${url}/public/v1/certificate/public-key`);
    try {
      await subscribe(call, `${receiver.url}/webhooks`, ['InboundDirectCredit'], SECRET);
      const made = await call('POST', '/sandbox/payments?wait=true', {
        body: { event: 'InboundDirectCredit', amount: '12.34', count: 3, LodgementRef: 'ORDER 77' },
      });
      expect(made.status, made.text).toBe(200);
      const [webhookId, ...others] = made.body.webhookIds as string[];
      expect(others).toEqual([]);
      expect(made.body.deliveries).toEqual([
        expect.objectContaining({ webhookId, status: 'Sent', lastResponseCode: 200 }),
      ]);

      // The body sent: the published batch shape, totals exact.
      const batch = made.body.payment as Batch;
      expect(batch).toMatchObject({ TotalCount: 3, TotalAmount: 37.02 });
      expect(batch.DirectCreditDetails).toHaveLength(3);
      for (const record of batch.DirectCreditDetails) {
        expect(Object.keys(record).sort()).toEqual(
          [
            'TransactionId',
            'BatchId',
            'DateTime',
            'Bsb',
            'AccountNumber',
            'AccountName',
            'TransactionCode',
            'Amount',
            'LodgementRef',
            'RemitterName',
            'NameOfUserSupplyingFile',
            'NumberOfUserSupplyingFile',
            'DescriptionOfEntriesOnFile',
            'Indicator',
            'WithholdingTaxAmount',
            'SourceBsb',
            'SourceAccountNumber',
            'ReceiptNumber',
          ].sort(),
        );
        expect(record).toMatchObject({ Amount: 12.34, LodgementRef: 'ORDER 77' });
        expect(record.TransactionId).toMatch(/^D[0-9A-Z]{11}$/);
        expect(record.BatchId).toMatch(/^0\d{12}$/);
        expect(record.DateTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
      }

      // Stored exactly once, typed, with no warnings.
      const [delivery] = await database.query(
        'SELECT webhook_id::text, event_name, modelled, warnings, convert_from(raw_body, $1) AS body FROM webhook_deliveries',
        ['UTF8'],
      );
      expect(delivery).toEqual({
        webhook_id: webhookId,
        event_name: 'InboundDirectCredit',
        modelled: true,
        warnings: [],
        body: JSON.stringify(batch),
      });
      const rows = await database.query<Record<string, string>>(
        'SELECT transaction_id, batch_id, amount, lodgement_ref, account_number, date_time_text FROM direct_credits ORDER BY transaction_id',
      );
      expect(rows).toEqual(
        batch.DirectCreditDetails.map((record) => ({
          transaction_id: record.TransactionId,
          batch_id: record.BatchId,
          amount: '12.34',
          lodgement_ref: 'ORDER 77',
          account_number: String(record.AccountNumber),
          date_time_text: record.DateTime,
        })).sort((a, b) => String(a.transaction_id).localeCompare(String(b.transaction_id))),
      );
      expect(
        await database.query(
          'SELECT total_count, total_amount, record_count FROM direct_credit_batches',
        ),
      ).toEqual([{ total_count: 3, total_amount: '37.02', record_count: 3 }]);
      expect(await database.count('quarantined_deliveries')).toBe(0);

      // Each record is a payment the sandbox can refund (direct entry: no wait).
      const refund = await call('POST', '/receivables/v2/refund', {
        body: {
          UniqueReference: 'dc-refund',
          originalTransactionId: batch.DirectCreditDetails[1]?.TransactionId,
          refundAmount: '12.34',
        },
      });
      expect(refund.status, refund.text).toBe(200);
    } finally {
      await receiver.close();
    }
  });

  it('when count is sent for another event, or out of range, then the control call is refused', async () => {
    const { call } = await startTestSandbox();
    for (const body of [
      { event: 'NPPReceivePayment', amount: '1.00', count: 2 },
      { event: 'InboundDirectCredit', amount: '1.00', count: 0 },
      { event: 'InboundDirectCredit', amount: '1.00', count: 101 },
    ]) {
      const answer = await call('POST', '/sandbox/payments', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.text).toContain('count');
    }
  });
});
