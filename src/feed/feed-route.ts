import { Router, type Response } from 'express';
import type { Logger } from '../lib/logger.ts';
import { createSecretMatcher } from '../lib/secrets.ts';
import { feedCatalogue } from './catalogue/catalogue.ts';
import { catalogueRouter } from './catalogue/catalogue-route.ts';
import type { FeedNotifier } from './feed-notifier.ts';
import { feedPageJson, readFeedPage } from './feed-page.ts';
import type { Db } from '../lib/database/database.ts';

const MAX_LIMIT = 500;
const MAX_WAIT_SECONDS = 30;
/** Long polls re-check this often even without a notification (a lost one costs this much). */
const RECHECK_MS = 1000;
/** Requests served at once; beyond it a quick 503 (each may hold a page in memory). */
const MAX_CONCURRENT = 32;

export interface FeedRouteOptions {
  db: Db;
  token: string;
  pageMaxBytes: number;
  notifier: Pick<FeedNotifier, 'wait'>;
  logger: Logger;
  /** Aborted when the instance shuts down: long polls answer at once. */
  closing?: AbortSignal;
}

/**
 * `GET /feed?after=<position>&limit=<1-500>&wait=<0-30>`, with `Authorization: Bearer <token>`
 * (compared in constant time). Answers `{"events": [...], "next": "<position>"}`; with `wait`,
 * an empty page is held until an event is assigned or `wait` seconds pass (long poll). Also
 * `GET /feed/schema[/<type>]`, the event catalogue (catalogue/catalogue-route.ts).
 */
export function feedRouter(options: FeedRouteOptions): Router {
  const authorised = createSecretMatcher([`Bearer ${options.token}`]);
  const router = Router();
  // The event catalogue (docs/feed-catalogue.md), behind the same token.
  router.use(
    catalogueRouter({
      catalogue: feedCatalogue(),
      authorised: (req) => authorised(canonicalBearer(req.get('authorization'))),
    }),
  );
  let inFlight = 0;
  router.get('/feed', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!authorised(canonicalBearer(req.get('authorization')))) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return answer(res, 401, { error: 'unauthorised' });
    }
    const query = parseQuery(req.query);
    if (typeof query === 'string') return answer(res, 400, { error: query });
    if (inFlight >= MAX_CONCURRENT) {
      res.setHeader('Retry-After', '1');
      return answer(res, 503, { error: 'too many feed requests; retry later' });
    }
    inFlight += 1;
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const stop = options.closing ? AbortSignal.any([gone.signal, options.closing]) : gone.signal;
    try {
      const deadline = Date.now() + query.waitSeconds * 1000;
      const read = () => readFeedPage(options.db, { ...query, maxBytes: options.pageMaxBytes });
      let page = await read();
      while (page.events.length === 0 && Date.now() < deadline && !stop.aborted) {
        await options.notifier.wait(Math.min(RECHECK_MS, deadline - Date.now()), stop);
        page = await read();
      }
      res.status(200).type('application/json').send(feedPageJson(page));
    } catch (error) {
      options.logger.error({ err: error }, 'feed page failed');
      answer(res, 503, { error: 'feed unavailable; retry later' });
    } finally {
      inFlight -= 1;
    }
  });
  return router;
}

interface FeedQuery {
  after: string;
  limit: number;
  waitSeconds: number;
}

/** Auth schemes are case-insensitive (RFC 9110): `bearer x` is `Bearer x`; the token is not. */
function canonicalBearer(header: string | undefined): string | undefined {
  const match = /^bearer +(\S+) *$/i.exec(header ?? '');
  return match ? `Bearer ${match[1]}` : header;
}

const PARAMETERS = ['after', 'limit', 'wait'] as const;

function parseQuery(query: Record<string, unknown>): FeedQuery | string {
  // A repeated parameter arrives as an array; reading it as absent would restart the feed at 0.
  const repeated = PARAMETERS.find(
    (name) => query[name] !== undefined && typeof query[name] !== 'string',
  );
  if (repeated !== undefined) return `${repeated} must be given once`;
  const text = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
  const after = text('after') ?? '0';
  if (!/^\d{1,18}$/.test(after)) return 'after must be a position (digits)';
  const limit = integerParam(text('limit'), 100, 1, MAX_LIMIT);
  if (limit === undefined) return `limit must be an integer from 1 to ${MAX_LIMIT}`;
  const waitSeconds = integerParam(text('wait'), 0, 0, MAX_WAIT_SECONDS);
  if (waitSeconds === undefined) return `wait must be whole seconds from 0 to ${MAX_WAIT_SECONDS}`;
  return { after, limit, waitSeconds };
}

function integerParam(raw: string | undefined, fallback: number, min: number, max: number) {
  if (raw === undefined) return fallback;
  if (!/^\d{1,6}$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= min && value <= max ? value : undefined;
}

function answer(res: Response, status: number, body: object): void {
  if (!res.headersSent) res.status(status).json(body);
}
