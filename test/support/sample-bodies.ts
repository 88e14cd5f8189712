import type { NppPaymentRow } from '../../src/receiver/events/types.ts';

/** Small valid bodies built in code, so each test states exactly what it sends. */

export function nppPayment(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    TransactionId: `TX${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    DateTime: '2023-08-11T14:19:16',
    Amount: 125.5,
    ReceiptNumber: 1048576,
    RemitterName: 'Jane Citizen',
    PaymentDescription: 'Invoice 42',
    ...overrides,
  };
}

export function rejectionRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `RJ${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    batchId: 5512,
    dateTime: '20/10/2020 12:00:01 AM',
    transactionType: 'DirectCredit',
    amount: '10.0000',
    ...overrides,
  };
}

/** A payment row with every optional column null (for tests that build rows directly). */
export function emptyPaymentRow(): NppPaymentRow {
  return {
    transactionId: '',
    amount: '0',
    dateTimeLocal: null,
    dateTimeText: null,
    endToEndId: null,
    receiptNumber: null,
    payId: null,
    payIdName: null,
    remitterName: null,
    bsb: null,
    accountNumber: null,
    accountName: null,
    sourceBsb: null,
    sourceAccountNumber: null,
    sourceAccountName: null,
    remittanceInformation: null,
    creditorReferenceInformation: null,
    reconciliationRuleReference: null,
    categoryPurposeCode: null,
    ultimateCreditorName: null,
    usiNumber: null,
    usiCreditorScheme: null,
    ledgerAccountNumber: null,
    ledgerUniqueReference: null,
    refundInboundAmount: null,
    refundAmount: null,
    refundId: null,
  };
}
