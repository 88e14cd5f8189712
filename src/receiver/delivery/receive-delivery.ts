import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { EventModel, FieldProblem } from '../events/types.ts';
import type { Db } from '../../lib/database/database.ts';
import { findStoredDelivery } from '../storage/deliveries-repository.ts';
import { UnstorableDeliveryError, type DeliveryStore } from '../storage/delivery-batcher.ts';
import type { DeliveryToStore } from '../storage/store-deliveries.ts';
import { toPostgresSafeText } from '../../lib/database/postgres-text.ts';
import { quarantineDelivery } from '../storage/quarantine-repository.ts';
import type { SigningKeySource } from '../verification/key-source.ts';
import { checkSignature } from '../verification/verify-delivery.ts';
import { decodeBody } from './decode-body.ts';
import { duplicate, quarantined, unauthorised, type DeliveryAnswer } from './delivery-answers.ts';

export type { DeliveryAnswer } from './delivery-answers.ts';
import { storedHeaders } from './stored-headers.ts';
import { parseWebhookId } from './webhook-id.ts';

export interface DeliveryDeps {
  db: Db;
  /** Writes accepted deliveries (batched with concurrent ones into one statement). */
  store: DeliveryStore;
  keys: SigningKeySource;
  now: () => Date;
}

export interface Delivery {
  /** Canonical name for a modelled event, else the name as it appeared in the URL. */
  eventName: string;
  model: EventModel | undefined;
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  requestId: string;
  remoteAddress: string | null;
}

/**
 * The contract's order of checks (docs/receiver-contract.md) from the signature on: signature, Webhookid,
 * duplicate, body, store (route and shared secret are checked by the HTTP layer before the body is
 * read). Each step either answers or hands on; nothing is stored for an unauthenticated request.
 */
export async function receiveDelivery(
  deps: DeliveryDeps,
  delivery: Delivery,
): Promise<DeliveryAnswer> {
  const { headers, rawBody } = delivery;

  // 4. Signature over the exact bytes.
  const signature = await checkSignature(
    rawBody,
    single(headers['verification-signature']),
    deps.keys,
  );
  if (!signature.ok) {
    if (signature.reason === 'no-key') {
      return {
        httpStatus: 503,
        outcome: 'no-signing-key',
        description: 'Signing key unavailable; retry later',
        log: { signatureCheck: signature.reason },
      };
    }
    // The key may have rotated and cannot be refetched this instant: a final 401 would lose a
    // genuine delivery (the platform never retries one), so 503 and let the retry decide. Its
    // own outcome, so that a forged flood does not look like a missing key on a dashboard.
    if (signature.reason === 'key-unconfirmed') {
      return {
        httpStatus: 503,
        outcome: 'signature-unconfirmed',
        description: 'Signature could not be confirmed against a fresh key; retry later',
        log: { signatureCheck: signature.reason },
      };
    }
    return unauthorised(signature.reason);
  }

  // One call, no Hash object: this runs for every delivery.
  const bodySha256 = hash('sha256', rawBody, 'hex');
  const webhookIdHeader = single(headers['webhookid']);
  // The delivery as it is stored, made once: its Webhookid and warnings are set once known.
  const received: ReceivedDelivery = {
    webhookId: '',
    eventName: delivery.eventName,
    receivedAt: deps.now(),
    bodySha256,
    rawBody,
    contentType: single(headers['content-type']) ?? null,
    headers: storedHeaders(headers),
    requestId: delivery.requestId,
    remoteAddress: delivery.remoteAddress,
    signingKeyFingerprint: signature.key.fingerprint,
    warnings: NO_WARNINGS,
  };

  try {
    // 5. Webhookid.
    const webhookId = parseWebhookId(webhookIdHeader);
    if (!webhookId.ok) {
      return await quarantine(
        deps,
        received,
        webhookIdHeader,
        [{ path: 'headers.Webhookid', message: webhookId.message }],
        null,
      );
    }
    received.webhookId = webhookId.value;

    // 7. Content type, JSON, schema. (6, the duplicate check, is folded into the store below,
    // where the unique constraints make it exact; a refused body only needs it to decide
    // between "already have it" and quarantine.)
    const body = decodeBody(rawBody, single(headers['content-type']), delivery.model);
    if (!body.ok) {
      const existing = await findStoredDelivery(deps.db, webhookId.value, received);
      if (existing) return duplicate({ webhookId: webhookId.value }, bodySha256, existing);
      return await quarantine(deps, received, webhookIdHeader, body.problems, webhookId.value);
    }
    received.warnings = body.warnings;

    // 6 + 8. Store once: delivery and typed rows in one statement, one commit.
    let result;
    try {
      result = await deps.store.store({ delivery: received, typed: body.typed });
    } catch (error) {
      if (!(error instanceof UnstorableDeliveryError)) throw error;
      // A value the database can never hold: retrying would fail the same way, so keep the
      // delivery for an operator instead of answering 500 and losing it after one retry.
      return await quarantine(
        deps,
        received,
        webhookIdHeader,
        [{ path: '', message: toPostgresSafeText(error.message) }],
        webhookId.value,
      );
    }
    if (!result.inserted) {
      // Only for the log line: which stored delivery this one repeats.
      const existing = await findStoredDelivery(deps.db, webhookId.value, received);
      return duplicate({ webhookId: webhookId.value }, bodySha256, existing);
    }
    const log: Record<string, unknown> = {
      webhookId: webhookId.value,
      typedRowsInserted: result.typedRowsInserted,
      // Non-zero: another delivery (or this one, earlier) already carried these keys.
      typedRowsAlreadyStored: result.typedRowsAlreadyStored,
    };
    if (!body.validUtf8) log.bodyNotUtf8 = true;
    // Keys stored before with other content: the first row stands, the conflict is recorded.
    if (result.conflicts > 0) log.conflicts = result.conflicts;
    if (body.warnings.length > 0) log.warnings = body.warnings;
    return {
      httpStatus: 200,
      outcome: 'stored',
      description: 'Delivery stored',
      log,
      conflicts: result.conflicts,
      notable: result.conflicts > 0 || body.warnings.length > 0,
    };
  } catch (error) {
    return {
      httpStatus: 500,
      outcome: 'error',
      description: 'Delivery not stored; retry later',
      log: { webhookId: webhookIdHeader, notStored: true },
      error,
    };
  }
}

type ReceivedDelivery = DeliveryToStore['delivery'];

const NO_WARNINGS: readonly FieldProblem[] = Object.freeze([]);

/** Keeps an authenticated delivery we refuse, for an operator, and answers 400. */
async function quarantine(
  deps: DeliveryDeps,
  received: ReceivedDelivery,
  webhookIdHeader: string | undefined,
  problems: FieldProblem[],
  webhookId: string | null,
): Promise<DeliveryAnswer> {
  const row = await quarantineDelivery(deps.db, {
    eventName: received.eventName,
    webhookIdHeader: webhookIdHeader ?? null,
    webhookId,
    receivedAt: received.receivedAt,
    bodySha256: received.bodySha256,
    rawBody: received.rawBody,
    contentType: received.contentType,
    headers: received.headers,
    reasons: problems,
    requestId: received.requestId,
    remoteAddress: received.remoteAddress,
    signingKeyFingerprint: received.signingKeyFingerprint,
  });
  return quarantined(problems, {
    webhookId: webhookId ?? webhookIdHeader,
    quarantineId: row.id,
    quarantineRowWritten: row.written,
  });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
