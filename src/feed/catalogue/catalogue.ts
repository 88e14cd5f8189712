import {
  FEED_EVENT_TYPES,
  TYPED_TABLES,
  type FeedEventType,
  type TypedTableEntry,
} from '../../receiver/contract.ts';
import { eventSchema, type EventSchemaSpec } from './event-schema.ts';
import type { JsonSchema } from './json-schema.ts';
import { OTHER_FIELDS, type OtherEventType } from './other-fields.ts';
import { typedFieldsSchema } from './typed-fields.ts';

/**
 * The catalogue's version: what a consumer may rely on (docs/feed-catalogue.md states what may
 * change within it and what needs the next one).
 */
export const CATALOGUE_VERSION = 'v1';

export interface FeedCatalogue {
  readonly version: string;
  readonly types: Readonly<Record<FeedEventType, JsonSchema>>;
}

type Spec = Omit<EventSchemaSpec, 'version' | 'type'>;

function typedSpec(entry: TypedTableEntry): Spec {
  const events = entry.contract.events.join(' or ');
  return {
    description: `One record of ${events}, stored as a ${entry.table} row (business key: ${entry.businessKey}).`,
    fields: typedFieldsSchema(entry),
    body: 'delivery',
  };
}

const OTHER_DESCRIPTIONS: Readonly<Record<OtherEventType, Omit<Spec, 'fields'>>> = {
  'conflict.detected': {
    description:
      "A business key came again with other content; the first row stands. The payload is the second delivery's body.",
    body: 'delivery',
  },
  'event.unmodelled': {
    description:
      'A delivery of an event the receiver does not model, stored as sent (business key: its Webhookid).',
    body: 'delivery',
  },
  'quarantine.opened': {
    description:
      'An authenticated delivery the data contract refused, quarantined for a person (business key: the quarantine id).',
    body: 'quarantined',
    webhookIdNullable: true,
  },
  'quarantine.resolved': {
    description: 'An operator handled a quarantined delivery (redriven or marked).',
    body: 'quarantined',
    webhookIdNullable: true,
  },
};

function specOf(type: FeedEventType): Spec {
  const typed = TYPED_TABLES.find((entry) => entry.feedType === type);
  if (typed !== undefined) return typedSpec(typed);
  const other = type as OtherEventType;
  return { ...OTHER_DESCRIPTIONS[other], fields: OTHER_FIELDS[other] };
}

/** Every feed event type's schema, from the data contract and the envelope the feed renders. */
export function feedCatalogue(): FeedCatalogue {
  const types = Object.fromEntries(
    FEED_EVENT_TYPES.map((type) => [
      type,
      eventSchema({ version: CATALOGUE_VERSION, type, ...specOf(type) }),
    ]),
  ) as Record<FeedEventType, JsonSchema>;
  return { version: CATALOGUE_VERSION, types };
}
