import { z } from 'zod';
import type { Dialect } from '../core/dialect.ts';
import { PAY_ID, patterned } from './patterns.ts';
import { OBJECT_BODY, patternedText } from './strict-fields.ts';

const PAY_ID_RULE = 'a PayID in email shape (local@domain)';

/** `POST /receivables/v{1,2}/payid/payIdEnquiry` body. */
const payIdEnquirySchema = z.object(
  { payId: patterned(PAY_ID, PAY_ID_RULE) },
  { error: 'the body must be a JSON object with payId' },
);

/** Both documents spell it `payId`; a strict dialect only says absent and mistyped apart. */
const strictPayIdEnquiry = z.object({ payId: patternedText(PAY_ID, PAY_ID_RULE) }, OBJECT_BODY);

export const PAYID_ENQUIRY_SCHEMAS: Record<Dialect, z.ZodType<{ payId: string }>> = {
  any: payIdEnquirySchema,
  interface: strictPayIdEnquiry,
  public: strictPayIdEnquiry,
};
