import { z } from 'zod';
import { parseProviderDateTime } from './date-time.ts';
import { toFieldProblems } from './field-problems.ts';
import { optional, required } from './fields.ts';
import { parseIdentifier } from './identifier.ts';
import { parseMoney } from './money.ts';
import { parseText } from './optional-string.ts';
import type { CreditRejectionRow, EventModel, ParseOutcome } from './types.ts';

/**
 * One rejection record, camelCase, as in the provider's published schemas
 * `event.InboundDirectCreditRejectionsWebhook` and `event.NppCreditRejectionsWebhook` (the same
 * fields). Loose: payId, payIdName, sourceBsb, status, ... stay in the raw body.
 */
const record = z.looseObject(
  {
    id: required(parseIdentifier),
    amount: required(parseMoney),
    batchId: optional(parseIdentifier),
    dateTime: optional(parseProviderDateTime),
    transactionType: optional(parseText),
    bsb: optional(parseText),
    accountNumber: optional(parseText),
    accountName: optional(parseText),
    lodgementRef: optional(parseText),
    remitterName: optional(parseText),
    reason: optional(parseText),
  },
  { error: 'must be a rejection record (a JSON object)' },
);

const singleRecord = record.transform((one) => [one]);

type RejectionRecord = z.output<typeof record>;

/**
 * InboundDirectCreditRejections is an array per contract and published spec. NPPCreditRejections
 * is an array per contract, but the provider's own published example is a single object, so
 * that model also takes one object as a batch of one (its problem paths then have no "[0]").
 */
export const inboundDirectCreditRejections = creditRejectionModel(
  'InboundDirectCreditRejections',
  false,
);
export const nppCreditRejections = creditRejectionModel('NPPCreditRejections', true);

function creditRejectionModel(name: string, acceptsSingleObject: boolean): EventModel {
  // An empty array is accepted as zero rows: it is well formed, and the delivery is still stored.
  const records = z.array(record, {
    error: acceptsSingleObject
      ? 'must be a JSON array of rejection records, or a single record'
      : 'must be a JSON array of rejection records',
  });
  return Object.freeze({
    name,
    parse(input: unknown): ParseOutcome {
      const isSingleObject = acceptsSingleObject && isPlainObject(input);
      const result = isSingleObject ? singleRecord.safeParse(input) : records.safeParse(input);
      if (!result.success) return { ok: false, problems: toFieldProblems(result.error.issues) };
      return { ok: true, typed: { kind: 'credit-rejections', rows: result.data.map(toRow) } };
    },
  });
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Each column and the provider field it comes from. */
function toRow(r: RejectionRecord): CreditRejectionRow {
  return {
    rejectionId: r.id, // id (integer in the spec, e.g. 2650)
    batchId: r.batchId, // batchId (integer in the spec)
    dateTimeLocal: r.dateTime?.local ?? null, // dateTime, as Sydney wall-clock time
    dateTimeText: r.dateTime?.text ?? null, // dateTime, as sent
    transactionType: r.transactionType, // transactionType ("DE" or "NPP")
    amount: r.amount, // amount (number, e.g. 1000.12)
    bsb: r.bsb, // bsb (payee BSB)
    accountNumber: r.accountNumber, // accountNumber (payee account)
    accountName: r.accountName, // accountName
    reference: r.lodgementRef, // lodgementRef (payer's reference)
    remitterName: r.remitterName, // remitterName (the payer)
    rejectionReason: r.reason, // reason ("Non Whitelisted Source Account")
  };
}
