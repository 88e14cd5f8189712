import { z } from 'zod';
import { payIdEmail } from './rules.ts';

/** POST /receivables/v2/payid/payIdEnquiry: the PayID must be one the caller owns. */
export const payIdEnquiryRequest = z.strictObject({ payId: payIdEmail });

export type PayIdEnquiryRequest = z.input<typeof payIdEnquiryRequest>;
