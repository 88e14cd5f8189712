import pg from 'pg';
import type { Logger } from '../lib/logger.ts';
import { FEED_CHANNEL } from './assigner.ts';
import { verifiedPosition } from './notification-signature.ts';

export interface FeedNotifier {
  /** Resolves at the next `feed_positions` notification, after `timeoutMs`, or on abort. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

const RECONNECT_MS = 1000;

/**
 * One LISTEN connection per instance, shared by every long-polling request: the assigner
 * notifies once per run (after its commit), so a waiting consumer wakes without polling. If
 * the connection drops it is reopened; waiters meanwhile still wake at their timeout, so a
 * lost notification costs latency, never an event.
 *
 * NOTIFY needs no privilege, so any role that connects may send on the channel: only a payload
 * signed with the key in `feed_notification_key` (which the feed reader cannot read) wakes the
 * waiters, and only for a position above the highest seen (a signed payload sent again by
 * whoever LISTENs wakes nobody). Anything else costs nothing but its delivery.
 */
export function createFeedNotifier(options: { url: string; logger: Logger }): FeedNotifier {
  const waiters = new Set<() => void>();
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let key: Buffer | undefined;
  /** The highest position a verified notification (or the table on connecting) named. */
  let highest = 0n;

  const wakeAll = () => {
    for (const wake of [...waiters]) wake();
  };
  const onNotification = (message: pg.Notification) => {
    const position = key && verifiedPosition(key, message.payload);
    if (position === undefined || position <= highest) return;
    highest = position;
    wakeAll();
  };
  const connect = async () => {
    const next = new pg.Client({ connectionString: options.url });
    next.on('notification', onNotification);
    next.on('error', (error) => {
      options.logger.warn({ err: error }, 'feed LISTEN connection lost; reopening');
      void next.end().catch(() => {});
      if (client === next) client = undefined;
      schedule();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${FEED_CHANNEL}`);
      // After LISTEN, so a run that commits meanwhile is either counted here or notified.
      const { rows } = await next.query<{ key: Buffer; highest: string | null }>(
        `SELECT (SELECT key FROM feed_notification_key) AS key,
           (SELECT max(position)::text FROM feed_events) AS highest`,
      );
      key = rows[0]?.key;
      const top = BigInt(rows[0]?.highest ?? '0');
      if (top > highest) highest = top;
      if (closed) return void (await next.end());
      client = next;
      wakeAll(); // anything assigned while disconnected
    } catch (error) {
      options.logger.warn({ err: error }, 'feed LISTEN connection failed; retrying');
      void next.end().catch(() => {});
      schedule();
    }
  };
  // connect() answers its own failures; should it fail anyway, that is logged, and waiters
  // still wake at their timeout.
  const start = () => {
    connect().catch((error: unknown) => {
      options.logger.error({ err: error }, 'feed LISTEN connection not opened');
    });
  };
  const schedule = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      start();
    }, RECONNECT_MS).unref();
  };
  start();

  return {
    wait: (timeoutMs, signal) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      }),
    close: async () => {
      closed = true;
      clearTimeout(retry);
      wakeAll();
      await client?.end().catch(() => {});
    },
  };
}
