import { withProviderTables } from '../tables.ts';
import { refundStoredPayment } from '../refund-stored-payment.ts';
import { optional, required, type Command } from './command.ts';
import { optionalFields } from './read-commands.ts';

export const refund: Command = {
  name: 'refund',
  summary:
    'Refunds a payment this service stored (NPP or PayTo): checked against the stored row first, its UniqueReference stored before the call, the result recorded in the refunds table. Run it again to resume a refund that got no answer.',
  options: {
    'transaction-id': { type: 'string', help: "the stored payment's TransactionId, required" },
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
    const db = withProviderTables(await database());
    return refundStoredPayment(
      { db, client, logger, now: () => new Date(now()) },
      {
        transactionId: required(values, 'transaction-id'),
        ...optionalFields({
          amount: optional(values, 'amount'),
          description: optional(values, 'description'),
          refundReference: optional(values, 'reference'),
        }),
      },
    );
  },
};
