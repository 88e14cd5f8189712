import { z } from 'zod';

/** Event names the sandbox can emit (those of the interface and the public PayTo event). */
export const SUBSCRIBABLE_EVENTS = [
  'NPPReceivePayment',
  'PayToReceivePayment',
  'InboundDirectCredit',
  'InboundDirectCreditRejections',
  'NPPCreditRejections',
] as const;

/** `POST /subscriptions/v1/create`, the platform's public shape. */
export const subscriptionSchema = z.object(
  {
    eventName: z.enum(SUBSCRIBABLE_EVENTS, {
      error: `must be one of ${SUBSCRIBABLE_EVENTS.join(', ')}`,
    }),
    targetUrl: z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .max(2000, { error: 'must be at most 2000 characters' }),
    subscriptionStatus: z.enum(['On', 'Off'], { error: 'must be On or Off' }).default('On'),
    securityToken: z.string().max(1000, { error: 'must be at most 1000 characters' }).optional(),
  },
  { error: 'the body must be a JSON object' },
);

export const deliveryReportSchema = z.object({
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be yyyy-MM-dd' }),
  skip: z
    .string()
    .regex(/^\d{1,9}$/, { error: 'must be 1-9 digits' })
    .transform(Number)
    .optional(),
  take: z
    .string()
    .regex(/^\d{1,5}$/, { error: 'must be 1-5 digits' })
    .transform(Number)
    .optional(),
});

export const webhookIdSchema = z.string().regex(/^\d{1,19}$/, { error: 'must be 1-19 digits' });
