import { z } from 'zod';
import { isRealWallClock } from '../../../src/lib/sydney-time.ts';
import { PAY_ID, PAY_ID_NAME, REPORT_STAMP, patterned } from './patterns.ts';

/** Whether 14 digits name a real calendar date-time (`20240230000000` does not). */
function isValidStamp(stamp: string): boolean {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(stamp);
  if (!match) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match
    .slice(1)
    .map(Number);
  // Years before 100 have always been refused here (Date.UTC read them as 19xx); kept so the
  // sandbox answers as before.
  return year >= 100 && isRealWallClock({ year, month, day, hour, minute, second, fraction: '' });
}

const stamp = patterned(REPORT_STAMP, '14 digits, yyyyMMddHHmmss').refine(isValidStamp, {
  error: 'must be a real date and time (yyyyMMddHHmmss)',
});

/** The largest `take` when endDate is given, and the default. */
const TAKE_MAX_WITH_END_DATE = 10_000;
export const TAKE_DEFAULT = 1000;

/**
 * `GET /paytoreceivables/v1/report/{date}`: the path's date and the query. `transactionType`
 * and `transactionCode` are the public reference's extra filters.
 */
export const reportSchema = z
  .object({
    date: stamp,
    endDate: stamp.optional(),
    skip: patterned(/^\d{1,9}$/, '1-9 digits')
      .transform(Number)
      .optional(),
    take: patterned(/^\d{1,5}$/, '1-5 digits')
      .transform(Number)
      .optional(),
    accountNumber: patterned(/^\d{1,34}$/, '1-34 digits').optional(),
    clientUniqueId: patterned(
      /^[A-Za-z0-9_.-]{1,50}$/,
      '1-50 letters, digits, _ - or .',
    ).optional(),
    payId: patterned(PAY_ID, 'a PayID in email shape').optional(),
    payIdName: patterned(PAY_ID_NAME, "1-140 letters, digits, spaces, . , ' & or -").optional(),
    transactionType: z.enum(['DE', 'NPP'], { error: 'must be DE or NPP' }).optional(),
    transactionCode: patterned(/^[A-Za-z0-9]{1,10}$/, '1-10 letters or digits').optional(),
  })
  .superRefine((query, ctx) => {
    if (query.endDate !== undefined && query.endDate < query.date) {
      ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before date' });
    }
    if (query.endDate !== undefined && (query.take ?? 0) > TAKE_MAX_WITH_END_DATE) {
      ctx.addIssue({
        code: 'custom',
        path: ['take'],
        message: `must be at most ${TAKE_MAX_WITH_END_DATE} when endDate is given`,
      });
    }
  });

export type ReportQuery = z.output<typeof reportSchema>;
