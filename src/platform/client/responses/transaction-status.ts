import { z } from 'zod';
import { lenientObject, text } from './lenient.ts';

/**
 * The answer to `GET /financial/v2/status/{uniqueReference}` (public reference). Its exact shape
 * for a refund is not documented, so it is read leniently: the record may sit at the top level
 * or under `transaction`, and counts as the refund's own record only when it names the same
 * `uniqueReference`. Anything else (no record, another reference, a state word not known here)
 * is no evidence either way: a look-up that does not cover refunds answers "not found".
 */
const recordShape = {
  uniqueReference: text,
  transactionId: text,
  transactionType: text,
  originalTransactionId: text,
  amount: text,
  transactionStatus: text,
};
const record = lenientObject(recordShape);

export const transactionStatusResponse = lenientObject({
  ...recordShape,
  transaction: z.unknown().optional(),
});

export type RefundStatusEvidence =
  | { kind: 'made'; transactionId: string | undefined; statusWord: string }
  | { kind: 'rejected'; statusWord: string }
  | { kind: 'no-evidence'; reason: string };

const MADE = /^(made|complete|completed|success|successful|succeeded|settled|processed|paid)$/i;
const REJECTED = /^(rejected|declined|failed|cancelled|canceled)$/i;

/** What the answer proves about the refund sent with `uniqueReference`. */
export function refundStatusEvidence(
  answer: z.output<typeof transactionStatusResponse>,
  uniqueReference: string,
): RefundStatusEvidence {
  const nested = record.safeParse(answer.transaction);
  const found = nested.success ? nested.data : answer;
  if (found.uniqueReference !== uniqueReference) {
    return { kind: 'no-evidence', reason: 'the answer does not name this uniqueReference' };
  }
  if (found.transactionType !== undefined && !/refund/i.test(found.transactionType)) {
    return {
      kind: 'no-evidence',
      reason: `the record is a ${found.transactionType}, not a refund`,
    };
  }
  const word = found.transactionStatus?.trim() ?? '';
  if (MADE.test(word)) {
    return { kind: 'made', transactionId: found.transactionId, statusWord: word };
  }
  if (REJECTED.test(word)) return { kind: 'rejected', statusWord: word };
  return { kind: 'no-evidence', reason: `the record's status is ${word || 'absent'}` };
}
