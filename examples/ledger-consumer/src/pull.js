/* global fetch, AbortController */
import { setTimeout as sleepFor } from 'node:timers/promises';
import { clearTimeout, setTimeout } from 'node:timers';
import { URL } from 'node:url';
import { TextDecoder } from 'node:util';
import { eventProblem } from './events.js';
import { readCursor, reportStored, storePage } from './ledger.js';
import { describeError } from './log.js';

/**
 * Pull mode: reads `GET /feed?after=<cursor>&limit=…&wait=…` (a long poll) with the bearer
 * token, and stores each page's events together with the new cursor in one transaction. The
 * cursor is the position of the last event stored, so a restart resumes exactly there; an event
 * read twice (after a crash between the page and its commit) is stored once anyway.
 *
 * Errors (the receiver down, 503, a database failure) are retried with a doubling, jittered
 * back-off. The loop stops when `signal` aborts: a long poll in flight is abandoned, a page
 * being stored is finished (committed or rolled back) first.
 *
 * @param {object} options
 * @param {import('./config.js').PullConfig} options.config
 * @param {import('pg').Pool} options.pool
 * @param {import('./log.js').Log} options.log
 * @param {AbortSignal} options.signal
 * @param {{ baseMs: number, maxMs: number }} [options.backoff]
 * @param {number} [options.maxPageBytes]
 * @returns {Promise<void>} when stopped
 */
export async function runPull(options) {
  const { config, pool, log, signal } = options;
  const backoff = options.backoff ?? { baseMs: 1000, maxMs: 60_000 };
  const maxPageBytes = options.maxPageBytes ?? 256 * 1024 * 1024;
  let failures = 0;
  /** @type {string | undefined} */
  let after;

  while (!signal.aborted) {
    try {
      if (after === undefined) {
        after = await readCursor(pool);
        log.info('pull: reading the feed', { feed: config.feedUrl, after });
      }
      const asked = Date.now();
      const { text, page } = await fetchPage(config, after, signal, maxPageBytes);
      const problem = pageProblem(page, after);
      if (problem !== undefined) throw new Error(`unusable feed page after ${after}: ${problem}`);
      const first = page.events[0];
      if (first !== undefined && BigInt(first.position) !== BigInt(after) + 1n) {
        // Positions are gapless: a hole means the receiver pruned events (its
        // RETENTION_FEED_DAYS) before this consumer read them. Say so; they are gone.
        log.error('pull: events missing from the feed (pruned before they were read?)', {
          from: (BigInt(after) + 1n).toString(),
          to: (BigInt(first.position) - 1n).toString(),
        });
      }
      if (page.events.length > 0) {
        const stored = await storePage(pool, text, page.next);
        reportStored(log, stored, 'pull');
        after = page.next;
      } else {
        // Nothing new, answered early (no long poll, or the receiver shutting down): at most
        // one request a second while idle.
        await sleepFor(Math.max(0, asked + 1000 - Date.now()), undefined, { signal }).catch(
          () => {},
        );
      }
      failures = 0;
    } catch (error) {
      if (signal.aborted) break;
      failures += 1;
      const step = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(failures - 1, 30));
      const delayMs = Math.round(step / 2 + (Math.random() * step) / 2);
      log.warn('pull: failed; retrying', { error: describeError(error), failures, delayMs });
      await sleepFor(delayMs, undefined, { signal }).catch(() => {});
    }
  }
  log.info('pull: stopped', { after });
}

/**
 * @param {import('./config.js').PullConfig} config
 * @param {string} after
 * @param {AbortSignal} stop
 * @param {number} maxBytes
 * @returns {Promise<{ text: string, page: { events: import('./events.js').FeedEvent[], next: string } }>}
 */
async function fetchPage(config, after, stop, maxBytes) {
  const url = new URL(config.feedUrl);
  url.searchParams.set('after', after);
  url.searchParams.set('limit', String(config.limit));
  url.searchParams.set('wait', String(config.waitSeconds));
  // Bounded: the long poll itself, plus time for a slow answer.
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error('no answer in time')),
    (config.waitSeconds + 30) * 1000,
  );
  const onStop = () => controller.abort(new Error('stopping'));
  stop.addEventListener('abort', onStop, { once: true });
  try {
    const response = await fetch(url, {
      headers: { Authorization: `Bearer ${config.token}`, Accept: 'application/json' },
      redirect: 'error',
      signal: controller.signal,
    });
    if (response.status !== 200) {
      const why = (await readLimited(response, 64 * 1024).catch(() => '')).slice(0, 200).trim();
      const hint = response.status === 401 ? ' (FEED_TOKEN refused)' : '';
      throw new Error(`GET /feed answered ${response.status}${hint}${why ? `: ${why}` : ''}`);
    }
    const text = await readLimited(response, maxBytes);
    return { text, page: JSON.parse(text) };
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', onStop);
  }
}

/**
 * @param {Response} response
 * @param {number} maxBytes
 */
async function readLimited(response, maxBytes) {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    throw new Error(`feed page larger than ${maxBytes} bytes`);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let text = '';
  let size = 0;
  for await (const chunk of /** @type {AsyncIterable<Uint8Array>} */ (response.body ?? [])) {
    size += chunk.length;
    if (size > maxBytes) throw new Error(`feed page larger than ${maxBytes} bytes`);
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * Why a page cannot be stored as it is, or undefined: every event well formed, positions
 * ascending after `after`, and `next` the last of them.
 *
 * @param {unknown} page
 * @param {string} after
 * @returns {string | undefined}
 */
export function pageProblem(page, after) {
  const { events, next } = /** @type {{ events?: unknown, next?: unknown }} */ (page ?? {});
  if (!Array.isArray(events)) return 'events must be an array';
  if (typeof next !== 'string' || !/^\d{1,18}$/.test(next)) return 'next must be a position';
  let previous = BigInt(after);
  for (const event of events) {
    const problem = eventProblem(event);
    if (problem !== undefined) return `event ${String(event?.id ?? '?')}: ${problem}`;
    const position = BigInt(event.position);
    if (position <= previous)
      return `event ${event.id}: position ${position} is not after ${previous}`;
    previous = position;
  }
  if (events.length > 0 && BigInt(next) !== previous)
    return `next ${next} is not the last position ${previous}`;
  if (events.length === 0 && next !== after) return `an empty page must answer next=${after}`;
  return undefined;
}
