import type { ServerResponse } from 'node:http';
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

export interface SecurityHeaders {
  /** helmet itself, for every route but the deliveries' fast path. */
  readonly middleware: RequestHandler;
  /** Does to an answer exactly what helmet does, without running helmet for every delivery. */
  apply(res: ServerResponse): void;
}

type HeaderEdit = readonly [name: string, value: string | undefined];

/**
 * helmet with this app's options, and the same headers replayed: helmet's answer here depends on
 * nothing in the request, so it is recorded once, at start, by running helmet against a response
 * that only notes what is done to it. The deliveries' fast path replays that list.
 */
export function createSecurityHeaders(): SecurityHeaders {
  const middleware = helmet(HELMET_FOR_A_JSON_API);
  const edits: HeaderEdit[] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => edits.push([name, String(value)]),
    removeHeader: (name: string) => edits.push([name, undefined]),
  };
  let failure: unknown = 'helmet did not finish synchronously';
  middleware(
    {} as Parameters<RequestHandler>[0],
    recorder as unknown as Parameters<RequestHandler>[1],
    (error?: unknown) => (failure = error),
  );
  if (failure !== undefined)
    throw new Error(`security headers could not be prepared: ${String(failure)}`);
  return {
    middleware,
    apply(res) {
      for (const [name, value] of edits) {
        if (value === undefined) res.removeHeader(name);
        else res.setHeader(name, value);
      }
    },
  };
}
