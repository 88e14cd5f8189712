import type { Request, RequestHandler, Response } from 'express';
import type { Counter } from 'prom-client';
import type { Level } from './counted-at-scrape.ts';
import { HttpError } from '../../lib/http/http-error.ts';

/**
 * How long a body being read is safe. The platform sends a small body (a few KB) at once, right
 * behind its headers (or one round trip after a `100 Continue`): it is in within milliseconds,
 * far inside this. A sender still sending after it while others wait is slow, and its place is
 * worth more to the next request. Longer protects slow honest senders better but lets slow
 * senders hold places longer; 1 s costs a genuine delivery at most one second of its 30 s.
 */
export const UNVERIFIED_GRACE_MS = 1000;

/**
 * Probation places per slot (see below). A place is cheap (the socket is open anyway, its bytes
 * are under the memory budget), and the more there are, the more arrivals a flood must bring
 * while a genuine body is read to push it out.
 */
const PROBATION_PLACES_PER_SLOT = 4;

/**
 * The bytes a body on probation may have (after inflation). The platform's bodies are a few KB;
 * a bigger one has no need to be read under pressure, and would only make an attacker's gzip
 * bodies cost memory: beyond this, the 503 it would have had at once.
 */
export const PROBATION_BODY_BYTES = 64 * 1024;

/**
 * Places for request bodies being read before their signature can be checked. The signature
 * covers the whole body, so nothing proves the sender until the last byte; the shared secret
 * does not (anyone who has seen one delivery has it). A delivery slot is taken only after.
 */
export interface UnverifiedBodies {
  /**
   * Takes a slot (evicting the longest reader past the grace period when all are taken) or,
   * failing that, a probation place; see `unverifiedBodies`.
   */
  readonly take: RequestHandler;
  /** Gives this request's place back (once its body is in), before the delivery is processed. */
  readonly giveBack: RequestHandler;
  /** PROBATION_BODY_BYTES for a request reading its body on probation; otherwise undefined. */
  probationLimit(res: Response): number | undefined;
}

export interface UnverifiedBodiesOptions {
  /** Slots (MAX_UNVERIFIED_BODIES). */
  max: number;
  /** Probation places; default PROBATION_PLACES_PER_SLOT × max. */
  probation?: number | undefined;
  /** Default UNVERIFIED_GRACE_MS. */
  graceMs?: number | undefined;
  /** Bodies being read now, in slots and on probation. */
  gauge: Level;
  /** Counts slot holders evicted past the grace period. */
  evicted: Counter;
  /** Description of the 503 for a body that was on probation and is refused. */
  refusal: string;
  /**
   * Ends a request that lost its place, with `error` (503: evicted, or refused): releases what
   * its body holds before it returns (the next request may be waiting for it), then answers and
   * closes its connection.
   */
  stop(req: Request, res: Response, error: HttpError): void;
  /** Monotonic milliseconds (tests); default performance.now. */
  now?: () => number;
}

interface Holder {
  readonly req: Request;
  readonly res: Response;
  /** When it took its place. */
  readonly since: number;
  /** On probation: refuses it once its grace period is over. */
  timer?: NodeJS.Timeout;
}

const EVICTED_DESCRIPTION = 'Request body too slow; its slot went to another request';

/**
 * Why not only a fixed number of slots held until the body ends (or REQUEST_TIMEOUT_MS, 30 s):
 * that is a number of slow sockets away from refusing every genuine delivery, and the secret
 * does not keep those sockets out. So:
 *
 * - Slots (`max`): a body being read holds one. When all are taken, a newcomer takes the slot
 *   of the holder that has been reading longest, if it is past the grace period; that one is
 *   evicted (503 + Retry-After, connection closed, its memory released at once). A slot holder within the
 *   grace period is never evicted, so a genuine body that is in within it always completes.
 * - Probation (`probation` places): when every slot is held by a body within its grace period
 *   (slow senders that keep reconnecting renew theirs all the time), the newcomer still reads
 *   its body, on probation: it must be in within the grace period and no larger than
 *   PROBATION_BODY_BYTES, or the answer is the 503 (Retry-After) it would have had at once. When
 *   all places are taken, the oldest gives way to the newcomer (503 too). A genuine body, in within milliseconds, goes through unless a flood
 *   brings as many arrivals as there are places in those milliseconds.
 *
 * Everything is bounded: bodies read at once (slots plus places), time (the grace period on
 * probation, REQUEST_TIMEOUT_MS in a slot), evictions (a slot holder is evictable only once it
 * has held its slot for the grace period), and memory: each body's bytes count against the
 * memory budget (first come, first served: a body that does not fit is refused, 503) and are
 * released when it loses its place; those on probation hold at most PROBATION_BODY_BYTES each. Past the grace period only slot holders remain, so with a
 * budget of at least `max` full-size bodies (the defaults: 16 x 4 MiB = 64 MiB) slow senders
 * cannot fill it while a slot is free, and once the slots are full the next arrival evicts one.
 * Slow senders, with or without the secret, hold at most the slots and places, only for as long
 * as nobody needs them, and never a delivery slot. What no budget here tells apart from real
 * traffic is a flood of new connections (thousands a second, each with the secret): that is a
 * rate, for the load balancer's limits.
 *
 * Places are taken in time order, so the oldest holder is the first in each map: taking,
 * giving back and evicting cost O(1).
 */
export function unverifiedBodies(options: UnverifiedBodiesOptions): UnverifiedBodies {
  const graceMs = options.graceMs ?? UNVERIFIED_GRACE_MS;
  const maxProbation = options.probation ?? PROBATION_PLACES_PER_SLOT * options.max;
  const now = options.now ?? (() => performance.now());
  const slots = new Map<Response, Holder>();
  const probation = new Map<Response, Holder>();
  const count = () => options.gauge.set(slots.size + probation.size);

  const release = (res: Response) => {
    if (slots.delete(res)) {
      count();
      return;
    }
    const holder = probation.get(res);
    if (holder === undefined) return;
    clearTimeout(holder.timer);
    probation.delete(res);
    count();
  };

  // One listener for every request ('close' comes once: answer done or connection gone), called
  // with the response as `this`: no closure per request on the delivery path.
  function releaseOnClose(this: Response) {
    release(this);
  }

  const refuse = (holder: Holder) => {
    release(holder.res);
    options.stop(holder.req, holder.res, new HttpError('overloaded', options.refusal));
  };

  /** Evicts the slot holder reading longest if it is past the grace; true when it did. */
  const evictOldest = (): boolean => {
    // The first holder is the oldest: if it is within the grace, so are the rest.
    const oldest = slots.values().next().value;
    if (oldest === undefined || now() - oldest.since <= graceMs) return false;
    release(oldest.res);
    options.evicted.inc();
    // Our budget, not the sender's fault: a 5xx, which the platform retries (a 4xx it may not).
    options.stop(oldest.req, oldest.res, new HttpError('overloaded', EVICTED_DESCRIPTION));
    return true;
  };

  return {
    take(req, res, next) {
      const holder: Holder = { req, res, since: now() };
      if (slots.size < options.max || evictOldest()) {
        slots.set(res, holder);
      } else {
        if (probation.size >= maxProbation) {
          const oldest = probation.values().next().value;
          if (oldest === undefined) {
            // No probation at all (configured to 0): the quick 503.
            next(new HttpError('overloaded', options.refusal));
            return;
          }
          refuse(oldest);
        }
        holder.timer = setTimeout(() => refuse(holder), graceMs).unref();
        probation.set(res, holder);
      }
      count();
      res.on('close', releaseOnClose);
      next();
    },
    giveBack(_req, res, next) {
      release(res);
      next();
    },
    probationLimit: (res) => (probation.has(res) ? PROBATION_BODY_BYTES : undefined),
  };
}
