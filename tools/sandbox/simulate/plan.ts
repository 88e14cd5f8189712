import type { KeyObject } from 'node:crypto';
import {
  DEFAULT_UNMODELLED_EVENT,
  MALFORMED_VARIANTS,
  VALID_VARIANTS,
  type Variant,
} from '../webhooks/payloads.ts';
import { randomInt, seededRandom, shuffled, type Random } from '../core/random.ts';
import { signBody } from '../../common/signing.ts';

export const DEFAULT_EVENTS = [
  'NPPReceivePayment',
  'InboundDirectCreditRejections',
  'NPPCreditRejections',
  DEFAULT_UNMODELLED_EVENT,
] as const;

export interface PlanOptions {
  events?: readonly string[];
  /** Distinct notifications; duplicates come on top. */
  count: number;
  duplicateRatio: number;
  badSignatureRatio: number;
  malformedRatio: number;
  seed: number;
}

/** What the receiver must answer: 200, 401 (forged) or 400 (quarantined). */
export type Expectation = 'accepted' | 'forged' | 'malformed';

interface Notification {
  index: number;
  eventName: string;
  variant: string;
  /** Unique per notification; a redelivery or retry carries the same one. */
  webhookId: string;
  body: Buffer;
  signature: string;
  expectation: Expectation;
}

export interface PlannedSend {
  notification: Notification;
  /** A redelivery of a notification already sent (same Webhookid, same bytes). */
  duplicate: boolean;
}

type Pick = { variant: Variant; eventName: string };

/** The run's deliveries, in sending order. Same options and key: the same bytes. */
export function planSimulation(options: PlanOptions, privateKey: KeyObject): PlannedSend[] {
  const random = seededRandom(options.seed);
  const runId = randomInt(random, 100_000, 999_999);
  const events = options.events?.length ? options.events : DEFAULT_EVENTS;
  const valid = picks(VALID_VARIANTS, events);
  const malformed = picks(MALFORMED_VARIANTS, events);
  const share = (ratio: number) => Math.round(options.count * ratio);
  const forgedCount = Math.min(share(options.badSignatureRatio), options.count);
  const malformedCount = Math.min(share(options.malformedRatio), options.count - forgedCount);

  const kinds = new Map<number, Expectation>();
  shuffled(random, [...Array(options.count).keys()]).forEach((index, position) => {
    const kind =
      position < forgedCount
        ? 'forged'
        : position < forgedCount + malformedCount
          ? 'malformed'
          : 'accepted';
    kinds.set(index, kind);
  });

  // Round robin per kind, so the accepted ones cover every variant once count allows.
  const counters: Record<Expectation, number> = { accepted: 0, forged: 0, malformed: 0 };
  const notifications: Notification[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const expectation = kinds.get(index) ?? 'accepted';
    const pool = expectation === 'malformed' ? malformed : valid;
    const pick = pool[counters[expectation]++ % pool.length] as Pick;
    const key = `${runId}${String(index).padStart(6, '0')}`;
    const body = Buffer.from(pick.variant.body(key, random), 'utf8');
    // A forgery: the signature is genuine, but over other bytes than those sent.
    const signed = expectation === 'forged' ? Buffer.concat([body, Buffer.from(' ')]) : body;
    notifications.push({
      index,
      eventName: pick.eventName,
      variant: pick.variant.name,
      webhookId: `${runId}${String(index).padStart(9, '0')}`,
      body,
      signature: signBody(signed, privateKey),
      expectation,
    });
  }
  return withDuplicates(notifications, options.duplicateRatio, random);
}

/** Each variant under each event it fits, so a run covers every shape of every event asked for. */
function picks(variants: readonly Variant[], events: readonly string[]): Pick[] {
  return events.flatMap((eventName) =>
    variants.filter((v) => fits(v, eventName)).map((variant) => ({ variant, eventName })),
  );
}

function fits(variant: Variant, eventName: string): boolean {
  if (variant.event === 'any') return true;
  // The receiver matches modelled names without regard to case (NppCreditRejections).
  const modelled = (name: string) =>
    VALID_VARIANTS.some((v) => v.event.toLowerCase() === name.toLowerCase());
  if (variant.event === 'unmodelled') return !modelled(eventName);
  return variant.event.toLowerCase() === eventName.toLowerCase();
}

/** Re-sends a share of the accepted notifications, each at a random later point in the run. */
function withDuplicates(
  notifications: Notification[],
  ratio: number,
  random: Random,
): PlannedSend[] {
  const sends: PlannedSend[] = notifications.map((notification) => ({
    notification,
    duplicate: false,
  }));
  const accepted = notifications.filter((n) => n.expectation === 'accepted');
  for (const original of shuffled(random, accepted).slice(0, Math.round(accepted.length * ratio))) {
    const after = sends.findIndex((send) => send.notification === original) + 1;
    sends.splice(randomInt(random, after, sends.length), 0, {
      notification: original,
      duplicate: true,
    });
  }
  return sends;
}
