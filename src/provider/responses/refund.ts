import { lenientObject, money, text } from './lenient.ts';

/** The refund's own transaction id (int32 in one document, text elsewhere) and its fees. */
export const refundResponse = lenientObject({
  transactionId: text,
  callerUniqueReference: text,
  feeAmountExcludingGst: money,
  feeAmountIncludingGst: money,
  feeAmountGstComponent: money,
});
