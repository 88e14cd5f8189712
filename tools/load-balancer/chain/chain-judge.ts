import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { NotificationRecord } from '../../sandbox/state/types.ts';
import { judgeStorage } from '../core/judge.ts';
import { check, histogram, tally, type Check, type FigureRow } from '../core/report.ts';
import type { ExpectedDelivery, StoredRows } from '../core/store.ts';
import type { ConsumerPost } from './consumer.ts';
import type { RecoverOutcome } from './recover-command.ts';

/** Everything the chain saw, gathered after it settled. */
export interface ChainEvidence {
  notifications: readonly NotificationRecord[];
  /** Webhookids the sandbox had given up on (both attempts failed) before recovery. */
  gaveUp: ReadonlySet<string>;
  /** Webhookids stored before recovery ran. */
  storedBeforeRecovery: ReadonlySet<string>;
  rows: StoredRows;
  posts: readonly ConsumerPost[];
  /** `GET /feed`: evt_<id> → the body's exact text. */
  feed: ReadonlyMap<string, string>;
  recoveries: RecoverOutcome[];
}

interface FeedBody {
  id: string;
  type: string;
  data: {
    eventName: string;
    businessKey: string;
    webhookId: string;
    payload?: unknown;
  };
}

const outcome = (a: { responseCode?: number; error?: string } | undefined) =>
  a === undefined
    ? 'none'
    : a.responseCode !== undefined
      ? String(a.responseCode)
      : `no answer (${(a.error ?? '').replace(/\s*\(.*$/, '').slice(0, 40)})`;

const TABLE_OF_EVENT: Record<string, string> = {
  NPPReceivePayment: 'npp_payments',
  PayToReceivePayment: 'payto_payments',
  InboundDirectCredit: 'direct_credits',
};

/** A payment's TransactionId; each record's of a direct-credit batch. */
function businessKeys(body: unknown): string[] {
  const fields = body as { TransactionId?: unknown; DirectCreditDetails?: unknown } | null;
  if (typeof fields?.TransactionId === 'string') return [fields.TransactionId];
  if (Array.isArray(fields?.DirectCreditDetails)) {
    return fields.DirectCreditDetails.map((record: { TransactionId?: unknown } | null) =>
      String(record?.TransactionId),
    );
  }
  return [];
}

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export function judgeChain(e: ChainEvidence): { figures: FigureRow[]; checks: Check[] } {
  const ours = e.notifications;
  const byWebhookId = new Map(ours.map((n) => [n.webhookId, n]));
  const bodies = new Map(ours.map((n) => [n.webhookId, JSON.parse(n.body) as unknown]));
  const keysOf = (n: NotificationRecord) => businessKeys(bodies.get(n.webhookId));
  /** Each notification's delivery, with a business row per payment or direct credit. */
  const expected: ExpectedDelivery[] = ours.map((n) => ({
    webhookId: n.webhookId,
    eventName: n.eventName,
    sha256: sha(n.body),
    rows: keysOf(n).map((key) => ({ table: TABLE_OF_EVENT[n.eventName] ?? 'none', key })),
  }));
  const firstTries = new Map<string, number>();
  const retries = new Map<string, number>();
  const resends = new Map<string, number>();
  let fiveXX = 0;
  for (const n of ours) {
    for (const attempt of n.attempts) {
      if (attempt.kind === 'first') tally(firstTries, outcome(attempt));
      else if (attempt.kind === 'retry') tally(retries, outcome(attempt));
      else tally(resends, outcome(attempt));
      if ((attempt.responseCode ?? 0) >= 500) fiveXX += 1;
    }
  }
  const gaveUpStoredAnyway = [...e.gaveUp].filter((id) => e.storedBeforeRecovery.has(id)).length;
  const toRecover = e.gaveUp.size - gaveUpStoredAnyway;
  const missingAfterRecovery = [...e.gaveUp].filter((id) => !e.rows.deliveries.has(id)).length;
  const stillError = ours.filter((n) => n.status !== 'Sent').length;
  const storage = judgeStorage(expected, e.rows);
  const payments = expected.flatMap((x) => x.rows.map((row) => `${x.eventName}/${row.key}`));

  // The feed: one event per payment, all sent; the consumer got each, byte for byte.
  const eventsByKey = new Map<string, number>();
  for (const event of e.rows.feedEvents)
    tally(eventsByKey, `${event.eventName}/${event.businessKey}`);
  const oneEventEach = payments.filter((key) => eventsByKey.get(key) === 1).length;
  const relayStates = new Map<string, number>();
  e.rows.feedEvents.forEach((event) => tally(relayStates, event.relayState));
  const feedIds = e.rows.feedEvents.map((event) => `evt_${event.id}`);

  const statuses = new Map<string, number>();
  const acked = new Map<string, number>();
  let unverified = 0;
  let differentFromFeed = 0;
  let headerMismatch = 0;
  for (const post of e.posts) {
    tally(statuses, post.status === 0 ? 'no answer (held)' : String(post.status));
    if (!post.verified) unverified += 1;
    if (post.status >= 200 && post.status < 300) tally(acked, post.webhookId);
    const served = e.feed.get(post.webhookId);
    if (served === undefined || served !== post.raw) differentFromFeed += 1;
    try {
      if ((JSON.parse(post.raw) as FeedBody).id !== post.webhookId) headerMismatch += 1;
    } catch {
      headerMismatch += 1;
    }
  }
  const delivered = feedIds.filter((id) => (acked.get(id) ?? 0) > 0).length;
  const ackedCopies = [...acked.values()].reduce((sum, n) => sum + n, 0);
  const duplicatesAtConsumer = ackedCopies - acked.size;
  const foreignAtConsumer = [...acked.keys()].filter((id) => !e.feed.has(id)).length;

  // The consumer's event carries the platform's notification unchanged.
  let payloadMismatch = 0;
  for (const id of feedIds) {
    const raw = e.feed.get(id);
    const body = raw === undefined ? undefined : (JSON.parse(raw) as FeedBody);
    const n = body ? byWebhookId.get(body.data.webhookId) : undefined;
    if (
      !body ||
      !n ||
      body.data.eventName !== n.eventName ||
      !keysOf(n).includes(body.data.businessKey) ||
      !isDeepStrictEqual(body.data.payload, bodies.get(n.webhookId))
    )
      payloadMismatch += 1;
  }
  const missingFromFeed = feedIds.filter((id) => !e.feed.has(id)).length;

  const [first, second] = e.recoveries;
  const resent = first?.summary?.notifications?.resent;
  const secondResent = second?.summary?.notifications?.resent;
  const payto = second?.summary?.payto ?? undefined;
  const recoveryLine = (r: RecoverOutcome | undefined) => {
    if (!r) return 'not run';
    const n = r.summary?.notifications;
    return (
      `exit ${r.timedOut ? 'timed out' : r.code}, ${r.seconds.toFixed(1)} s: ${n?.seen ?? '?'} rows, ` +
      `${n?.alreadyStored ?? '?'} already stored, ${n?.resent ?? '?'} resent, ${n?.failed ?? '?'} failed` +
      (r.summary?.payto
        ? `; PayTo ${r.summary.payto.receipts ?? '?'} receipts, ${r.summary.payto.unmatched ?? '?'} unmatched`
        : '')
    );
  };

  const figures: FigureRow[] = [
    ['notifications the sandbox sent', ours.length],
    ['  first tries by status', histogram(firstTries) || '-'],
    ['  retries (once, after the delay) by status', histogram(retries) || '-'],
    ['  sandbox attempts answered 5xx', fiveXX],
    ['sandbox gave up (both attempts failed)', e.gaveUp.size],
    ['  of which stored anyway (committed, answer lost)', gaveUpStoredAnyway],
    ['recovery run 1 (--skip-payto)', recoveryLine(first)],
    ['recovery run 2 (with PayTo)', recoveryLine(second)],
    ['resends the sandbox delivered, by status', histogram(resends) || '-'],
    ['missing after recovery', missingAfterRecovery],
    ['left Error at the sandbox (stored, so not resent)', stillError],
    ...storage.figures,
    ['feed events (relay state)', `${e.rows.feedEvents.length} (${histogram(relayStates) || '-'})`],
    [
      'relay attempts (claims) for them',
      e.rows.feedEvents.reduce((sum, event) => sum + event.attempts, 0),
    ],
    ['consumer POSTs by answer', histogram(statuses) || '-'],
    ['delivered to the consumer (distinct events, 2xx)', `${delivered} of ${feedIds.length}`],
    ['duplicates at the consumer (2xx copies beyond the first)', duplicatesAtConsumer],
    ['POSTs whose body differs from GET /feed', differentFromFeed],
  ];

  const checks: Check[] = [
    check(
      'the sandbox finished every notification before the judge (Sent, or Error after its retry)',
      ours.every((n) => n.status !== 'Pending'),
    ),
    check('the database cut reached the sandbox (5xx answers)', fiveXX > 0, `${fiveXX}`),
    check(
      'the sandbox gave up on some notifications (recovery had work)',
      e.gaveUp.size > 0,
      `${e.gaveUp.size}`,
    ),
    check(
      'recovery run 1 exits 0 and resends exactly what was given up and not stored',
      first?.code === 0 && resent === toRecover,
      `exit ${first?.code}, resent ${resent} of ${toRecover}`,
    ),
    check(
      'nothing the sandbox gave up on is missing after recovery',
      missingAfterRecovery === 0,
      `${missingAfterRecovery} missing`,
    ),
    check(
      'recovery run 2 exits 0: nothing left to resend, every PayTo receipt matched',
      second?.code === 0 && secondResent === 0 && (payto?.unmatched ?? 0) === 0,
      `exit ${second?.code}, resent ${secondResent}, PayTo unmatched ${payto?.unmatched ?? '-'}`,
    ),
    ...storage.checks,
    check(
      'one feed event per stored payment, every one sent (none dead, none pending)',
      oneEventEach === payments.length &&
        e.rows.feedEvents.length === payments.length &&
        (relayStates.get('sent') ?? 0) === e.rows.feedEvents.length,
      `${oneEventEach} of ${payments.length}; ${histogram(relayStates) || '-'}`,
    ),
    check(
      'GET /feed serves every event',
      missingFromFeed === 0 && e.feed.size === feedIds.length,
      `${missingFromFeed} missing, ${e.feed.size} served`,
    ),
    check(
      'every event reached the consumer at least once (2xx)',
      delivered === feedIds.length && feedIds.length > 0,
      `${delivered} of ${feedIds.length}`,
    ),
    check(
      'every POST verified by the standardwebhooks library, webhook-id = body id',
      unverified === 0 && headerMismatch === 0,
      `${unverified} unverified, ${headerMismatch} mismatched`,
    ),
    check(
      'every copy the consumer got is byte-identical to what GET /feed serves for it',
      differentFromFeed === 0 && foreignAtConsumer === 0,
      `${differentFromFeed} differ, ${foreignAtConsumer} unknown`,
    ),
    check(
      "every event carries the sandbox's notification unchanged (payload, Webhookid, key)",
      payloadMismatch === 0,
      `${payloadMismatch} differ`,
    ),
  ];
  return { figures, checks };
}
