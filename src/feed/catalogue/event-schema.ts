import { kind, nullable, VALUE_KINDS, type JsonSchema } from './json-schema.ts';

/** How an event carries the body it is about. */
type BodyCarried = 'delivery' | 'quarantined';

const BASE64: JsonSchema = {
  type: 'string',
  contentEncoding: 'base64',
  pattern: '^[A-Za-z0-9+/]*={0,2}$',
};

/**
 * `payload` / `payloadBase64` (src/feed/delivery-body.ts): a delivery's body as sent (null once
 * retention pruned it), or its exact bytes when a strict JSON parser could refuse it; a
 * quarantined body always as its exact bytes (null once pruned).
 */
const BODY: Record<BodyCarried, JsonSchema> = {
  delivery: {
    payload: {
      description:
        "The body as the platform sent it: keys in its order, numbers exactly as written; null once retention pruned the raw request. Its shape is the provider's, not this catalogue's.",
    },
    payloadBase64: {
      ...BASE64,
      description:
        'Replaces `payload` when a strict JSON parser could refuse the body (a NUL or lone surrogate in a string, a number beyond a double): the exact bytes.',
    },
  },
  quarantined: {
    payload: { type: 'null', description: 'The refused bytes were pruned by retention.' },
    payloadBase64: { ...BASE64, description: 'The exact bytes refused.' },
  },
};

export interface EventSchemaSpec {
  readonly version: string;
  readonly type: string;
  readonly description: string;
  readonly fields: JsonSchema;
  readonly body: BodyCarried;
  /** Quarantine events only: a delivery whose Webhookid could not be read has none. */
  readonly webhookIdNullable?: boolean;
}

/**
 * One event type's whole body (docs/feed.md, "The event body"), self-contained: the envelope,
 * `data`, its `fields` and the value kinds under `$defs`. Objects are open: within a version a
 * consumer must ignore properties it does not know (docs/feed-catalogue.md).
 */
export function eventSchema(spec: EventSchemaSpec): JsonSchema {
  const webhookId = kind('digits', 'The Webhookid of the delivery the event is about.');
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `urn:monoova-webhook-receiver:feed:${spec.version}:${spec.type}`,
    title: spec.type,
    description: spec.description,
    type: 'object',
    required: ['id', 'type', 'position', 'timestamp', 'data'],
    properties: {
      id: {
        type: 'string',
        pattern: '^evt_[1-9][0-9]*$',
        description:
          'The event id: the Standard Webhooks `webhook-id`, the same on every attempt and replay.',
      },
      type: { const: spec.type },
      position: kind(
        'digits',
        "The event's place in the feed (commit order): a cursor for `GET /feed?after=`.",
      ),
      timestamp: kind('instant', 'When the event was committed to the outbox.'),
      data: {
        type: 'object',
        required: ['eventName', 'businessKey', 'webhookId', 'receivedAt', 'fields'],
        properties: {
          eventName: kind('text', 'The event name of the delivery, as the platform named it.'),
          businessKey: kind(
            'text',
            'The key events of one business record share; order holds per key.',
          ),
          webhookId: spec.webhookIdNullable === true ? nullable(webhookId) : webhookId,
          receivedAt: kind('instant', 'When the delivery was received.'),
          fields: spec.fields,
          ...BODY[spec.body],
        },
        oneOf: [{ required: ['payload'] }, { required: ['payloadBase64'] }],
      },
    },
    $defs: VALUE_KINDS,
  };
}
