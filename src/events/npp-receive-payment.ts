import { z } from 'zod';
import { parseProviderDateTime } from './date-time.ts';
import { toFieldProblems } from './field-problems.ts';
import { optional, required } from './fields.ts';
import { parseIdentifier } from './identifier.ts';
import { parseMoney } from './money.ts';
import { parseText } from './optional-string.ts';
import type { EventModel, NppPaymentRow, ParseOutcome } from './types.ts';

/**
 * RefundDetails comes from the contract, not the published spec; each part is optional so a
 * partial block is kept rather than refused.
 */
const refundDetails = z.looseObject(
  {
    InboundAmount: optional(parseMoney),
    RefundAmount: optional(parseMoney),
    RefundId: optional(parseIdentifier),
  },
  { error: 'must be an object or null' },
);

/**
 * Field names from the provider's published schema `event.receivePaymentWebhook` (PascalCase).
 * Loose: unknown fields, and spelling variants the model ignores (USIScheme beside
 * USICreditorScheme, ReconciliationRuleReference, SourceBsb, ...), stay in the raw body and are
 * never a reason to refuse.
 */
const body = z.looseObject(
  {
    TransactionId: required(parseIdentifier),
    Amount: required(parseMoney),
    DateTime: optional(parseProviderDateTime),
    ReceiptNumber: optional(parseIdentifier),
    EndToEndId: optional(parseText),
    PayId: optional(parseText),
    RemitterName: optional(parseText),
    Bsb: optional(parseText),
    AccountNumber: optional(parseText),
    PaymentDescription: optional(parseText),
    RefundDetails: refundDetails.nullable().optional(),
  },
  { error: 'must be a JSON object (one NPPReceivePayment notification)' },
);

type Body = z.output<typeof body>;

export const nppReceivePayment: EventModel = Object.freeze({
  name: 'NPPReceivePayment',
  parse(input: unknown): ParseOutcome {
    const result = body.safeParse(input);
    if (!result.success) return { ok: false, problems: toFieldProblems(result.error.issues) };
    return { ok: true, typed: { kind: 'npp-payment', rows: [toRow(result.data)] } };
  },
});

/** Each column and the provider field it comes from. */
function toRow(b: Body): NppPaymentRow {
  const refund = b.RefundDetails ?? null;
  return {
    transactionId: b.TransactionId, // TransactionId ("N00100000000")
    endToEndId: b.EndToEndId, // EndToEndId (Osko end-to-end id from the payer)
    amount: b.Amount, // Amount ("10.0000")
    dateTimeLocal: b.DateTime?.local ?? null, // DateTime, as Sydney wall-clock time
    dateTimeText: b.DateTime?.text ?? null, // DateTime, as sent
    receiptNumber: b.ReceiptNumber, // ReceiptNumber
    payId: b.PayId, // PayId (the payee PayID the payer paid to)
    remitterName: b.RemitterName, // RemitterName (the payer)
    bsb: b.Bsb, // Bsb (payee BSB, i.e. the receiving account; SourceBsb is the payer's)
    accountNumber: b.AccountNumber, // AccountNumber (payee account)
    remittanceInformation: b.PaymentDescription, // PaymentDescription (payer's free text)
    refundInboundAmount: refund?.InboundAmount ?? null, // RefundDetails.InboundAmount
    refundAmount: refund?.RefundAmount ?? null, // RefundDetails.RefundAmount
    refundId: refund?.RefundId ?? null, // RefundDetails.RefundId
  };
}
