import { z } from 'zod';
import { isValidStamp } from '../sydney-time.ts';
import { PAY_ID, PAY_ID_NAME, REPORT_STAMP, patterned } from './patterns.ts';

const stamp = patterned(REPORT_STAMP, '14 digits, yyyyMMddHHmmss').refine(isValidStamp, {
  error: 'must be a real date and time (yyyyMMddHHmmss)',
});

/** The largest `take` when endDate is given, and the default. */
export const TAKE_MAX_WITH_END_DATE = 10_000;
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
