import { refundStoredPayment } from '../refunds/refund-stored-payment.ts';
import { withProviderTables } from '../storage/tables.ts';
import { RefundInDoubtError } from '../refunds/refund-in-doubt.ts';
import { UsageError } from '../../lib/command-line/errors.ts';
import { notDone, optional, required, type Command } from './command.ts';
import { optionalFields } from './read-commands.ts';

export const refund: Command = {
  name: 'refund',
  summary:
    'Refunds a payment this service stored (NPP or PayTo), once per --caller-reference: the same reference again prints the recorded result and sends nothing, or resumes the same request when its outcome was unknown. Checked against the stored row first; the row is written before the call. Exit 0 refunded, 1 refused by the platform, or still in doubt (the platform may have paid it; its amount stays held: run the same command again later, or see refund-resolve), 2 refused before sending.',
  options: {
    'transaction-id': { type: 'string', help: "the stored payment's TransactionId, required" },
    'caller-reference': {
      type: 'string',
      help: 'your own id for this refund (a return or order id, 1-100 characters), required',
    },
    amount: {
      type: 'string',
      help: 'dollars and cents, e.g. 12.50 (default: all not yet refunded)',
    },
    description: { type: 'string', help: 'brief text identifying the refund' },
    reference: {
      type: 'string',
      help: 'refund reference shown to the payer (up to 18 characters)',
    },
  },
  run: async ({ client, database, logger, now }, values) => {
    const transactionId = required(values, 'transaction-id');
    const callerReference = optional(values, 'caller-reference');
    if (!callerReference) {
      throw new UsageError(
        '--caller-reference is required: your own id for this refund, so running the command again can never refund twice',
      );
    }
    const db = withProviderTables(await database());
    try {
      return await refundStoredPayment(
        { db, client, logger, now: () => new Date(now()) },
        {
          transactionId,
          callerReference,
          ...optionalFields({
            amount: optional(values, 'amount'),
            description: optional(values, 'description'),
            refundReference: optional(values, 'reference'),
          }),
        },
      );
    } catch (error) {
      // Never "refused, nothing refunded" for a refund the platform may have made.
      if (error instanceof RefundInDoubtError) throw notDone(error.message, error.toJSON());
      throw error;
    }
  },
};

export const refunds: Command = {
  name: 'refunds',
  summary:
    'The refunds recorded here (no call to the platform): of one payment, or the one asked for under a caller reference; state, amount, attempts and the last answer.',
  options: {
    'transaction-id': { type: 'string', help: "a stored payment's TransactionId" },
    'caller-reference': { type: 'string', help: 'the caller reference of one refund' },
  },
  run: async ({ database }, values) => {
    const transactionId = optional(values, 'transaction-id');
    const callerReference = optional(values, 'caller-reference');
    if (transactionId === undefined && callerReference === undefined) {
      throw new UsageError('give --transaction-id or --caller-reference');
    }
    const db = withProviderTables(await database());
    let query = db.selectFrom('refunds').selectAll().orderBy('requested_at');
    if (transactionId !== undefined) query = query.where('transaction_id', '=', transactionId);
    if (callerReference !== undefined)
      query = query.where('caller_reference', '=', callerReference);
    return { refunds: await query.limit(1000).execute() };
  },
};
