import { z } from 'zod';
import { PAY_ID, patterned } from './patterns.ts';

/** `POST /receivables/v{1,2}/payid/payIdEnquiry` body. */
export const payIdEnquirySchema = z.object(
  { payId: patterned(PAY_ID, 'a PayID in email shape (local@domain)') },
  { error: 'the body must be a JSON object with payId' },
);
