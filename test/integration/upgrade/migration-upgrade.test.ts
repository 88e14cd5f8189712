import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { createMigrator, migrateToLatest } from '../../../src/lib/database/migrator.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * An upgraded deployment: a database at the initial migration holding rows written the way the
 * previous version wrote them (its exact INSERT columns), then `migrateToLatest`. Every new
 * column is backfilled from the stored payload; odd values become null, never a failed
 * migration; stored PayToReceivePayment deliveries become typed rows.
 */

const INITIAL = '2026-11-22T00-00-00_initial-schema';
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(async (db) => {
    const { error } = await createMigrator(db).migrateTo(INITIAL);
    if (error) throw error;
  });
  await writeRowsTheOldWay();
  await migrateToLatest(database.db, createLogger('silent'));
});
afterAll(() => database.drop());

const PAYMENT = {
  TransactionId: 'N-OLD-1',
  DateTime: '20/10/2020 12:00:01 AM',
  Amount: '10.0000',
  AccountName: 'Acme Receivables',
  AccountNumber: '419001918',
  Bsb: '802-985',
  PayId: 'pay@acme.example.com.au',
  PayIdName: 'ACME PTY LTD',
  RemitterName: 'ABC XYZ',
  SourceBsb: 62000, // a bare number, as the published examples send account numbers
  SourceAccountNumber: '123456789',
  SourceAccountName: 'Monoova Payers Name',
  CategoryPurposeCode: '',
  CreditorReferenceInformation: 'RF18',
  ReconciliationRuleReference: { odd: true }, // unreadable: null
  UltimateCreditorName: 'ACME HOLDINGS',
  USINumber: 'ABC0001AU',
  USIScheme: 'USI', // the published spelling fills usi_creditor_scheme
  LedgerAccountNumber: '5520001',
  LedgerUniqueReference: 'LUR-1',
  ReceiptNumber: '5678120',
};

const REJECTIONS = [
  {
    id: 2650,
    amount: 1000.12,
    transactionCode: '50',
    status: 'Processed',
    payId: '',
    payIdName: 'ACME',
    endToEndId: 'E2E-1',
    sourceBsb: '123-123',
    sourceAccountNumber: 123123123,
    sourceAccountName: 'Test',
    indicator: 'N',
    withholdingTaxAmount: 12.5,
    nameOfUserSupplyingFile: 'WIDGETS',
    numberOfUserSupplyingFile: '123079',
    descriptionOfEntriesOnFile: 'PAYMENTS',
    ledgerAccountNumber: '5520003',
    ledgerUniqueReference: 'LUR-3',
  },
  { id: '2651', amount: '25.5000', withholdingTaxAmount: 'n/a', status: ['odd'] },
  { id: '2652', amount: 1, withholdingTaxAmount: 0.123456 },
];

const PAYTO = {
  TransactionId: 'P-OLD-1',
  DateTime: '11/08/2023 14:19',
  Amount: 55,
  RemitterName: 'PAT CITIZEN',
  MMSId: 'MMS-1',
  InitiatingPartyName: 'ACME BILLING',
  NPPInstructionId: 'PI123456789',
  ReceiptNumber: 5679011,
  RefundDetails: { InboundAmount: '55.0000', RefundAmount: 'n/a', RefundId: 77 },
};

async function writeRowsTheOldWay(): Promise<void> {
  const delivery = async (id: number, event: string, modelled: boolean, body: unknown) => {
    const text = JSON.stringify(body);
    await database.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
         raw_body, payload, content_type, headers, request_id, remote_address, signing_key_fingerprint)
       VALUES ($1, $2, $3, now(), $4, $5, $6::jsonb, 'application/json', '{}', 'r', '127.0.0.1', 'fp')`,
      [id, event, modelled, sha256(text), Buffer.from(text), text],
    );
  };
  await delivery(1, 'NPPReceivePayment', true, PAYMENT);
  await database.query(
    `INSERT INTO npp_payments (transaction_id, webhook_id, end_to_end_id, amount, date_time_local,
       date_time_text, receipt_number, pay_id, remitter_name, bsb, account_number,
       remittance_information, refund_inbound_amount, refund_amount, refund_id, received_at)
     VALUES ('N-OLD-1', 1, NULL, 10, '2020-10-20 00:00:01', '20/10/2020 12:00:01 AM', '5678120',
       'pay@acme.example.com.au', 'ABC XYZ', '802-985', '419001918', NULL, NULL, NULL, NULL, now())`,
  );
  await delivery(2, 'InboundDirectCreditRejections', true, REJECTIONS);
  for (const [id, amount] of [
    ['2650', '1000.12'],
    ['2651', '25.5'],
    ['2652', '1'],
  ]) {
    await database.query(
      `INSERT INTO credit_rejections (event_name, rejection_id, webhook_id, batch_id,
         date_time_local, date_time_text, transaction_type, amount, bsb, account_number,
         account_name, reference, remitter_name, rejection_reason, received_at)
       VALUES ('InboundDirectCreditRejections', $1, 2, NULL, NULL, NULL, NULL, $2, NULL, NULL,
         NULL, NULL, NULL, NULL, now())`,
      [id, amount],
    );
  }
  // Stored raw by the previous version, under the spelling in the URL.
  await delivery(3, 'paytoreceivepayment', false, PAYTO);
  await delivery(4, 'PayToReceivePayment', false, { PaymentAgreementId: 'PA-1' }); // no id
  await delivery(5, 'PayToReceivePayment', false, { ...PAYTO, Amount: 'lots' }); // no amount
  // The same bytes for a second event could not be stored before; now it may be.
  await delivery(6, 'NppReturn', false, ['same']);
  // Odd stored values: an impossible date, a numeric id, numbers beyond any column.
  await delivery(9, 'PayToReceivePayment', false, {
    TransactionId: 12345,
    Amount: '1.5',
    DateTime: '2023-02-30T10:00:00',
    MmsId: 1e300,
    RefundDetails: { InboundAmount: 1e300, RefundAmount: '9'.repeat(60) },
  });
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('upgrading a database written by the previous version', () => {
  it('when migrated, then each new payment column is filled from the payload, odd values null', async () => {
    const [row] = await database.query('SELECT * FROM npp_payments');
    expect(row).toMatchObject({
      transaction_id: 'N-OLD-1',
      amount: '10',
      account_name: 'Acme Receivables',
      pay_id_name: 'ACME PTY LTD',
      source_bsb: '62000',
      source_account_number: '123456789',
      source_account_name: 'Monoova Payers Name',
      category_purpose_code: null,
      creditor_reference_information: 'RF18',
      reconciliation_rule_reference: null,
      ultimate_creditor_name: 'ACME HOLDINGS',
      usi_number: 'ABC0001AU',
      usi_creditor_scheme: 'USI',
      ledger_account_number: '5520001',
      ledger_unique_reference: 'LUR-1',
    });
  });

  it('when migrated, then each rejection is filled from its own record in the batch', async () => {
    const rows = await database.query(
      `SELECT rejection_id, transaction_code, status, pay_id, pay_id_name, end_to_end_id,
         source_bsb, source_account_number, source_account_name, indicator,
         withholding_tax_amount, name_of_user_supplying_file, number_of_user_supplying_file,
         description_of_entries_on_file, ledger_account_number, ledger_unique_reference
       FROM credit_rejections ORDER BY rejection_id`,
    );
    expect(rows).toEqual([
      {
        rejection_id: '2650',
        transaction_code: '50',
        status: 'Processed',
        pay_id: null,
        pay_id_name: 'ACME',
        end_to_end_id: 'E2E-1',
        source_bsb: '123-123',
        source_account_number: '123123123',
        source_account_name: 'Test',
        indicator: 'N',
        withholding_tax_amount: '12.5',
        name_of_user_supplying_file: 'WIDGETS',
        number_of_user_supplying_file: '123079',
        description_of_entries_on_file: 'PAYMENTS',
        ledger_account_number: '5520003',
        ledger_unique_reference: 'LUR-3',
      },
      expect.objectContaining({ rejection_id: '2651', withholding_tax_amount: null, status: null }),
      expect.objectContaining({ rejection_id: '2652', withholding_tax_amount: null }),
    ]);
  });

  it('when migrated, then a stored PayToReceivePayment with an id and amount becomes a typed row', async () => {
    const rows = await database.query('SELECT * FROM payto_payments ORDER BY webhook_id');
    expect(rows).toEqual([
      expect.objectContaining({
        transaction_id: 'P-OLD-1',
        webhook_id: '3',
        amount: '55',
        date_time_local: '2023-08-11 14:19:00',
        date_time_text: '11/08/2023 14:19',
        remitter_name: 'PAT CITIZEN',
        receipt_number: '5679011',
        mms_id: 'MMS-1',
        initiating_party_name: 'ACME BILLING',
        npp_instruction_id: 'PI123456789',
        refund_inbound_amount: '55',
        refund_amount: null,
        refund_id: '77',
      }),
      expect.objectContaining({
        transaction_id: '12345',
        amount: '1.5',
        date_time_local: null,
        date_time_text: '2023-02-30T10:00:00',
        mms_id: null,
        refund_inbound_amount: null,
        refund_amount: null,
      }),
    ]);
    const deliveries = await database.query(
      'SELECT webhook_id, event_name, modelled, warnings FROM webhook_deliveries ORDER BY webhook_id',
    );
    expect(deliveries.slice(2, 5)).toEqual([
      { webhook_id: '3', event_name: 'PayToReceivePayment', modelled: true, warnings: [] },
      { webhook_id: '4', event_name: 'PayToReceivePayment', modelled: false, warnings: [] },
      { webhook_id: '5', event_name: 'PayToReceivePayment', modelled: false, warnings: [] },
    ]);
  });

  it('when migrated, then the same bytes may be stored for another event, but not twice for one', async () => {
    const text = JSON.stringify(['same']);
    const insert = (id: number, event: string) =>
      database.query(
        `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at,
           body_sha256, raw_body, headers) VALUES ($1, $2, false, now(), $3, $4, '{}')`,
        [id, event, sha256(text), Buffer.from(text)],
      );
    await insert(7, 'NppPaymentStatus');
    await expect(insert(8, 'NppReturn')).rejects.toThrow(/webhook_deliveries_event_body_once/);
  });
});
