import { z } from 'zod';
import { digits, pattern, payIdEmail } from './rules.ts';

/** `yyyyMMddHHmmss`, Sydney wall-clock time (the platform's days are AEST/AEDT days). */
const stamp = pattern(
  /^\d{4}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])([01]\d|2[0-3])[0-5]\d[0-5]\d$/,
  'a Sydney date-time yyyyMMddHHmmss',
);

/** GET /paytoreceivables/v1/report/{date}: one day, or a range with `endDate`. */
export const paytoReportRequest = z
  .strictObject({
    date: stamp,
    endDate: stamp.optional(),
    skip: digits(1, 9).optional(),
    take: digits(1, 5).optional(),
    accountNumber: digits(1, 34).optional(),
    clientUniqueId: pattern(/^[A-Za-z0-9_.-]{1,50}$/, '1-50 letters, digits or _ - .').optional(),
    payId: payIdEmail.optional(),
    payIdName: pattern(
      /^[A-Za-z0-9 .,'&-]{1,140}$/,
      "1-140 letters, digits, spaces or . , ' & -",
    ).optional(),
  })
  .refine((q) => q.take === undefined || Number(q.take) <= (q.endDate ? 10_000 : 1000), {
    path: ['take'],
    message: 'must be at most 1000 (10000 with endDate)',
  });

export type PaytoReportRequest = z.input<typeof paytoReportRequest>;

/** The whole Sydney day `YYYY-MM-DD` as the report's `date` parameter. */
export function paytoDayStamp(day: string): string {
  return `${day.replaceAll('-', '')}000000`;
}
