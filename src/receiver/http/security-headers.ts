import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The headers that matter for a JSON API (no HTML is ever served): no sniffing, no framing, no
 * referrer, HSTS, a deny-all CSP. The browser-page headers helmet adds by default are left out:
 * they protect nothing here and cost time on every delivery.
 */
const HELMET_FOR_A_JSON_API: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  referrerPolicy: { policy: 'no-referrer' },
};

/** helmet with this app's options: every answer carries the same headers. */
export function securityHeaders(): RequestHandler {
  return helmet(HELMET_FOR_A_JSON_API);
}
