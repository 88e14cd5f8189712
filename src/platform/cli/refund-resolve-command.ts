import { resolveRefund } from '../refunds/resolve-refund.ts';
import { withProviderTables } from '../storage/tables.ts';
import { UsageError } from '../../lib/command-line/errors.ts';
import { notDone, required, type Command } from './command.ts';

const OUTCOMES = ['paid', 'not-paid'] as const;

export const refundResolve: Command = {
  name: 'refund-resolve',
  summary:
    "Settles a refund in doubt (unknown, or pending with no run sending it) by an operator's decision, recorded on the row with who and on what evidence: paid (the amount stays refunded) or not-paid (the amount is released). Sends nothing to the platform. Use only with evidence (docs/runbooks/refund-unknown.md). Exit 0 resolved, 1 refused (not in doubt, unknown reference, being sent), 2 bad usage.",
  options: {
    'caller-reference': { type: 'string', help: 'the caller reference of the refund, required' },
    outcome: { type: 'string', help: 'paid | not-paid: what the evidence shows, required' },
    by: { type: 'string', help: 'who confirmed it (your name), required' },
    evidence: {
      type: 'string',
      help: "what shows it (a statement line, the platform's ticket number), required",
    },
  },
  run: async ({ database, logger, now }, values) => {
    const callerReference = required(values, 'caller-reference');
    const outcome = required(values, 'outcome');
    if (!(OUTCOMES as readonly string[]).includes(outcome)) {
      throw new UsageError('--outcome must be paid or not-paid');
    }
    const by = required(values, 'by').trim();
    const evidence = required(values, 'evidence').trim();
    if (by === '' || by.length > 200) throw new UsageError('--by must be 1-200 characters');
    if (evidence === '' || evidence.length > 2000) {
      throw new UsageError('--evidence must be 1-2000 characters');
    }
    const db = withProviderTables(await database());
    const result = await resolveRefund(
      { db, logger, now: () => new Date(now()) },
      { callerReference, outcome: outcome as (typeof OUTCOMES)[number], by, evidence },
    );
    if (!result.resolved) {
      throw notDone(`refund ${callerReference} not resolved: ${result.reason}`, {
        ...(result.refund && { refund: result.refund }),
      });
    }
    return { resolved: true, refund: result.refund };
  },
};
