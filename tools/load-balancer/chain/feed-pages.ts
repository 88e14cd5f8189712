import { HttpCallError, httpCall } from '../../../src/lib/http-client.ts';

/** Most pages read (500 events each): far above what the chain stores. */
const MAX_PAGES = 100;
/** One page of 500 events, each a few KiB at most. */
const MAX_PAGE_BYTES = 64 * 1024 * 1024;

/**
 * Every event `GET /feed` serves, by `evt_<id>`, each as the exact text of its body: the page is
 * `{"events":[<body>,<body>,…],"next":"…"}` with each body spliced in as rendered
 * (src/feed/feed-page.ts), and a body begins `{"id":"evt_<n>","type":`, which nothing inside
 * one does (payload keys are the platform's, and jsonb writes `"id": ` with a space).
 */
export async function readWholeFeed(baseUrl: string, token: string): Promise<Map<string, string>> {
  const events = new Map<string, string>();
  let after = '0';
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await httpCall({
      url: `${baseUrl}/feed?after=${after}&limit=500`,
      headers: { Authorization: `Bearer ${token}` },
      timeoutMs: 10_000,
      maxResponseBytes: MAX_PAGE_BYTES,
      accept: (status) => status === 200,
    }).catch((error: unknown) => {
      if (!(error instanceof HttpCallError) || error.kind !== 'status') throw error;
      throw new Error(`GET /feed: ${error.status} ${error.body ?? ''}`);
    });
    const text = answer.body.toString('utf8');
    const bodies = splitPage(text);
    if (bodies.length === 0) return events;
    for (const body of bodies) {
      const parsed = JSON.parse(body) as { id?: unknown; position?: unknown };
      if (typeof parsed.id !== 'string' || typeof parsed.position !== 'string') {
        throw new Error(`GET /feed: an event without id or position: ${body.slice(0, 200)}`);
      }
      events.set(parsed.id, body);
      after = parsed.position;
    }
  }
  throw new Error(`GET /feed: more than ${MAX_PAGES} pages`);
}

const PREFIX = '{"events":[';
const BOUNDARY = /,(?=\{"id":"evt_\d+","type":")/;

function splitPage(text: string): string[] {
  const end = text.lastIndexOf('],"next":');
  if (!text.startsWith(PREFIX) || end < PREFIX.length - 1) {
    throw new Error(`GET /feed: not a feed page: ${text.slice(0, 200)}`);
  }
  const inner = text.slice(PREFIX.length, end);
  const parts = inner === '' ? [] : inner.split(BOUNDARY);
  const whole = JSON.parse(text) as { events: unknown[] };
  if (whole.events.length !== parts.length) {
    throw new Error(
      `GET /feed: page split into ${parts.length} bodies but holds ${whole.events.length} events`,
    );
  }
  return parts;
}
