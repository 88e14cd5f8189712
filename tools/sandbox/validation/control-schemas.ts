import { z } from 'zod';
import { contractOf } from '../../../src/receiver/contract.ts';
import { AFTER_ACTION_ANSWERS } from '../core/after-action.ts';
import { FAULT_KINDS } from '../core/faults.ts';
import { AMOUNT_PATTERN, toCents } from '../core/money.ts';
import {
  BANK_ACCOUNT,
  LEDGER_REFERENCE,
  NICK_NAME,
  PAY_ID,
  PAY_ID_NAME,
  PERSON_NAME,
  PHONE,
  email,
  patterned,
  strippedDigits,
} from './patterns.ts';

/** Bodies of the `/sandbox/…` control routes (docs/sandbox.md). */

const amount = patterned(AMOUNT_PATTERN, 'a decimal amount with at most 2 places, e.g. "12.34"');
const field = z
  .string({ error: 'must be text' })
  .max(200, { error: 'must be at most 200 characters' });

/**
 * The fields of a record a test may choose, from the data contract (src/receiver): those that
 * are neither required nor date-times, by their first spelling (USICreditorScheme, never
 * USIScheme), less `except`, which the sandbox fills itself. Nested parts (RefundDetails) are
 * the sandbox's too.
 */
function choosable(events: readonly string[], except: readonly string[]): readonly string[] {
  const names = events
    .flatMap((event) => contractOf(event)?.fields ?? [])
    .filter((spec) => spec.required !== true && spec.kind !== 'date-time')
    .map((spec) => spec.from[0] ?? spec.key)
    .filter((name) => !except.includes(name));
  return [...new Set(names)];
}

/**
 * Payment fields a test may choose (NPP, PayTo and an InboundDirectCredit record's own); the
 * rest are filled in. ReceiptNumber is the sandbox's, unique per payment (core/ids.ts).
 */
const PAYMENT_FIELDS = choosable(['PayToReceivePayment', 'InboundDirectCredit'], ['ReceiptNumber']);

/** Records in one InboundDirectCredit batch made by one call. */
const MAX_DIRECT_CREDITS_PER_BATCH = 100;

export const paymentControlSchema = z
  .object({
    event: z.enum(['NPPReceivePayment', 'PayToReceivePayment', 'InboundDirectCredit'], {
      error: 'must be NPPReceivePayment, PayToReceivePayment or InboundDirectCredit',
    }),
    amount,
    DateTime: patterned(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/,
      'yyyy-MM-ddTHH:mm:ss (Sydney)',
    ).optional(),
    /** InboundDirectCredit only: how many records (each of `amount`) the batch holds. */
    count: z
      .number({ error: `must be a whole number from 1 to ${MAX_DIRECT_CREDITS_PER_BATCH}` })
      .int({ error: `must be a whole number from 1 to ${MAX_DIRECT_CREDITS_PER_BATCH}` })
      .min(1, { error: `must be a whole number from 1 to ${MAX_DIRECT_CREDITS_PER_BATCH}` })
      .max(MAX_DIRECT_CREDITS_PER_BATCH, {
        error: `must be a whole number from 1 to ${MAX_DIRECT_CREDITS_PER_BATCH}`,
      })
      .optional(),
    /** NPP and PayTo: how much went straight back (a refund settled), in RefundDetails. */
    refundAmount: amount.optional(),
    ...Object.fromEntries(PAYMENT_FIELDS.map((name) => [name, field.optional()])),
  })
  .refine((body) => body.count === undefined || body.event === 'InboundDirectCredit', {
    path: ['count'],
    error: 'is for InboundDirectCredit only (a batch of records)',
  })
  .refine((body) => body.refundAmount === undefined || body.event !== 'InboundDirectCredit', {
    path: ['refundAmount'],
    error: 'is for NPPReceivePayment and PayToReceivePayment only (RefundDetails)',
  })
  .refine(
    (body) =>
      body.refundAmount === undefined ||
      // Checked only when both are amounts (their own rule names them otherwise).
      ![body.refundAmount, body.amount].every((text) => AMOUNT_PATTERN.test(text)) ||
      toCents(body.refundAmount) <= toCents(body.amount),
    { path: ['refundAmount'], error: 'must be at most the amount' },
  );

/**
 * Rejection record fields a test may choose: batchId and withholdingTaxAmount are the
 * sandbox's, sent as JSON numbers (webhooks/payloads.ts).
 */
const REJECTION_FIELDS = choosable(['NPPCreditRejections'], ['batchId', 'withholdingTaxAmount']);

export const rejectionControlSchema = z
  .object({
    event: z.enum(['InboundDirectCreditRejections', 'NPPCreditRejections'], {
      error: 'must be InboundDirectCreditRejections or NPPCreditRejections',
    }),
    records: z
      .array(
        z.object({
          amount,
          ...Object.fromEntries(REJECTION_FIELDS.map((name) => [name, field.optional()])),
        }),
      )
      .min(1, { error: 'must hold 1-100 records' })
      .max(100, { error: 'must hold 1-100 records' }),
    /** The public reference's NPPCreditRejections example: one record as a bare object. */
    singleObject: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .refine((body) => !body.singleObject || body.records.length === 1, {
    path: ['singleObject'],
    error: 'needs exactly one record',
  });

const flag = z.boolean({ error: 'must be true or false' }).optional();

export const walletControlSchema = z.object({
  name: patterned(PERSON_NAME, "1-100 letters, digits, spaces, ' - or ."),
  email,
  mobile: strippedDigits(PHONE, '0 followed by 9 digits'),
  nickName: patterned(NICK_NAME, "0-50 letters, digits, spaces, ' - or .").optional(),
  landLine: strippedDigits(PHONE, '0 followed by 9 digits').optional(),
  pin: patterned(/^\d{4}$/, 'exactly 4 digits').optional(),
  balance: amount.optional(),
  isOnHold: flag,
  isClosed: flag,
  isStolen: flag,
  isRegistered: flag,
});

export const payIdControlSchema = z.object({
  payId: patterned(PAY_ID, 'a PayID in email shape (local@domain)'),
  payIdName: patterned(PAY_ID_NAME, "1-140 letters, digits, spaces, & . , ' or -"),
  bankAccountNumber: patterned(BANK_ACCOUNT, '6-10 digits'),
  payIdStatus: z.enum(['Enable', 'Disable', 'Deregister', 'Port']).default('Enable'),
  ledgerAccountNumber: patterned(BANK_ACCOUNT, '6-10 digits').optional(),
  ledgerUniqueReference: patterned(LEDGER_REFERENCE, '1-50 letters, digits, . _ or -').optional(),
});

export const clockControlSchema = z.object({
  seconds: z
    .number({ error: 'must be a number of seconds' })
    .min(0, { error: 'must be ≥ 0 (the clock only moves forward)' })
    .max(10 * 366 * 86_400, { error: 'must be at most ten years' }),
});

const count = z.number().int().min(1).max(1000).default(1);
/** Any error status, 408 and 429 included (the ones a client may retry). */
const status = z.number().int().min(400).max(599).default(500);
const path = z.string().startsWith('/').max(200).optional();

export const faultControlSchema = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('rotate-key') }),
    z.object({
      kind: z.enum(FAULT_KINDS.filter((kind) => kind !== 'after-action')),
      count,
      status,
      path,
    }),
    z.object({
      kind: z.literal('after-action'),
      count,
      status,
      path,
      answer: z.enum(AFTER_ACTION_ANSWERS, {
        error: `must be one of ${AFTER_ACTION_ANSWERS.join(', ')}`,
      }),
    }),
  ],
  { error: `kind must be rotate-key or one of ${FAULT_KINDS.join(', ')}` },
);
