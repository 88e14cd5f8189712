import { moneyText } from '../../lib/money.ts';
import type { ProviderError } from '../client/protocol/provider-error.ts';
import type { RefundRow } from './refunds-repository.ts';

/**
 * A refund the platform may have made although no answer says so: its row stays `unknown` (or
 * `pending`) with its amount held, and no refusal of a later attempt changes that, since a
 * refusal of the resume proves nothing about the first request. Only the platform's own answer
 * (an Ok to the same nonce, or its status record of the refund) or an operator's recorded
 * decision (`provider refund-resolve`) settles it.
 */
export class RefundInDoubtError extends Error {
  override readonly name = 'RefundInDoubtError';
  readonly refund: RefundRow;
  /** The platform's last answer (or lack of one) to this run's request, when one was sent. */
  readonly lastAnswer: ProviderError | undefined;

  constructor(refund: RefundRow, lastAnswer: ProviderError | undefined) {
    super(
      `refund ${refund.caller_reference} of ${moneyText(refund.amount)} is still in doubt: the platform may have paid it, so its amount stays held. Run the same command again later to resume it (same nonce, never a second refund), or, with evidence of what the platform did, record it with \`npm run provider -- refund-resolve\` (docs/runbooks/refund-unknown.md).`,
      lastAnswer === undefined ? {} : { cause: lastAnswer },
    );
    this.refund = refund;
    this.lastAnswer = lastAnswer;
  }

  toJSON(): Record<string, unknown> {
    return {
      error: this.message,
      inDoubt: true,
      callerReference: this.refund.caller_reference,
      uniqueReference: this.refund.unique_reference,
      state: this.refund.state,
      amount: moneyText(this.refund.amount),
      attempts: this.refund.attempts,
      ...(this.lastAnswer !== undefined && { lastAnswer: this.lastAnswer.toJSON() }),
    };
  }
}
