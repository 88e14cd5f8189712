import { z } from 'zod';
import { isLoopbackHost } from '../../../lib/config/kinds.ts';
import { digits, isoDate, pattern } from './rules.ts';

/** POST /subscriptions/v1/create. The security token is echoed on every callback: a secret. */
export const createSubscriptionRequest = z.strictObject({
  eventName: pattern(/^[A-Za-z0-9]{1,64}$/, '1-64 letters or digits'),
  targetUrl: z.url({ protocol: /^https$/, error: 'must be an https URL' }),
  subscriptionStatus: z.enum(['On', 'Off'], { error: 'must be On or Off' }).default('On'),
  securityToken: z.string().min(1).max(500, 'must be at most 500 characters').optional(),
});

/**
 * The same, to a platform on this machine (the sandbox, PROVIDER_ENV=local): it may call a
 * receiver on this machine over plain http, the developer's loop. A remote platform cannot
 * reach loopback and must be given https, so only a local one is asked this.
 */
export const localCreateSubscriptionRequest = createSubscriptionRequest.extend({
  targetUrl: z
    .url({ protocol: /^https?$/, error: 'must be an https URL, or http to this machine' })
    .refine((url) => {
      const parsed = new URL(url);
      return parsed.protocol === 'https:' || isLoopbackHost(parsed.hostname);
    }, 'must be an https URL, or http to 127.0.0.1, localhost or [::1] (the platform is local)'),
});

/** GET /subscriptions/v1/report/{yyyy-MM-dd}: what was sent that day and how it went. */
export const deliveryReportRequest = z.strictObject({
  date: isoDate,
  skip: z.number().int().min(0).max(999_999_999).optional(),
  take: z.number().int().min(1).max(1000).optional(),
});

/** POST /subscriptions/v2/resend/{WebhookId}: the same notification again, same `Webhookid`. */
export const resendRequest = z.strictObject({ webhookId: digits(1, 19) });

export type CreateSubscriptionRequest = z.input<typeof createSubscriptionRequest>;
export type DeliveryReportRequest = z.input<typeof deliveryReportRequest>;
export type ResendRequest = z.input<typeof resendRequest>;
