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
