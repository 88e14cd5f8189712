import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';

/**
 * The payload of a `feed_positions` notification: `<position>.<HMAC-SHA256 hex>`, keyed with
 * the row of `feed_notification_key` (migrations/2026-11-28T01-…), which only the receiver role
 * may read. NOTIFY needs no privilege, so any role that connects (the read-only feed role
 * included) can send one on the channel; the service wakes its long polls only for a payload it
 * can verify, and only for a position newer than the last it saw, so a signed payload copied
 * from LISTEN and sent again wakes nobody (issue 24, item 8).
 */

type Executor = Parameters<RawBuilder<unknown>['execute']>[0];

const POSITION = /^[1-9][0-9]{0,18}$/;

function mac(key: Buffer, position: string): Buffer {
  // The channel's name is part of what is signed: the key signs nothing else.
  return createHmac('sha256', key).update(`feed_positions:${position}`).digest();
}

export function signPosition(key: Buffer, position: string): string {
  return `${position}.${mac(key, position).toString('hex')}`;
}

/** The position a payload names if it was signed with `key`; undefined for anything else. */
export function verifiedPosition(key: Buffer, payload: string | undefined): bigint | undefined {
  const [position, signature, ...rest] = (payload ?? '').split('.');
  if (rest.length > 0 || !position || !signature || !POSITION.test(position)) return undefined;
  if (!/^[0-9a-f]{64}$/.test(signature)) return undefined;
  const expected = mac(key, position);
  return timingSafeEqual(expected, Buffer.from(signature, 'hex')) ? BigInt(position) : undefined;
}

export async function readNotificationKey(executor: Executor): Promise<Buffer> {
  const { rows } = await sql<{ key: Buffer }>`SELECT key FROM feed_notification_key`.execute(
    executor,
  );
  const key = rows[0]?.key;
  if (!key) throw new Error('feed_notification_key has no row (migrations not applied?)');
  return key;
}
