import { TYPED_TABLES, type FeedEventType, type TypedTableEntry } from '../../receiver/contract.ts';
import { allPresent, kind, nullable, type JsonSchema } from './json-schema.ts';

/** The feed's event types of no typed table: their `fields` are described here, by hand. */
export type OtherEventType = Exclude<FeedEventType, TypedTableEntry['feedType']>;

/** [{path, message}]: why a delivery was refused, or a field stored as null. */
const PROBLEMS: JsonSchema = {
  type: 'array',
  items: allPresent({ path: kind('text'), message: kind('text') }),
};

/**
 * A conflict as detected (src/feed/render-events.ts reads the `conflicts` row without its later
 * resolution, so every rendering of the event is the same).
 */
const CONFLICT = allPresent(
  {
    id: kind('digits', 'The conflict (`npm run recover -- conflicts`).'),
    table_name: {
      type: 'string',
      enum: [...new Set(TYPED_TABLES.map((t) => t.table))],
      description:
        'The typed table whose business key came again. Gains a value within a version when an event type is added (docs/feed-catalogue.md).',
    },
    event_name: kind('text'),
    business_key: kind('text'),
    first_webhook_id: kind('digits', 'The delivery whose row stands (it is never changed).'),
    webhook_id: kind('digits', 'The delivery that brought other content under the same key.'),
    record_index: {
      type: 'integer',
      minimum: 0,
      description: 'Position of the record in its body (0 for a payment).',
    },
    differences: {
      type: 'array',
      description: 'The columns that differ, by column name, with both values.',
      items: {
        type: 'object',
        required: ['field', 'first', 'second'],
        properties: { field: kind('text'), first: {}, second: {} },
      },
    },
    detected_at: kind('instant'),
  },
  'The conflicts row.',
);

/** A quarantined delivery, never its headers (its body comes as `payloadBase64`). */
const QUARANTINED = {
  id: kind('digits', 'The quarantine row (`npm run quarantine -- show <id>`).'),
  event_name: kind('text'),
  webhook_id_header: nullable(kind('text', 'The Webhookid header exactly as sent.')),
  webhook_id: nullable(kind('digits', 'The Webhookid, when the header could be read.')),
  received_at: kind('instant'),
  body_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  content_type: nullable(kind('text')),
  reasons: { ...PROBLEMS, description: 'Why the body was refused.' },
} satisfies Record<string, JsonSchema>;

export const OTHER_FIELDS: Readonly<Record<OtherEventType, JsonSchema>> = {
  'conflict.detected': CONFLICT,
  'event.unmodelled': {
    type: 'null',
    description: 'An event of no modelled type has no typed row: the body is in `payload`.',
  },
  'quarantine.opened': allPresent(QUARANTINED, 'The quarantined_deliveries row, as opened.'),
  'quarantine.resolved': allPresent(
    {
      ...QUARANTINED,
      handled_at: kind('instant'),
      handling: {
        type: 'string',
        enum: ['redriven', 'marked'],
        description: 'Redriven (stored again) or marked handled by an operator.',
      },
      handled_note: nullable(kind('text')),
    },
    'The quarantined_deliveries row with how an operator handled it.',
  ),
};
