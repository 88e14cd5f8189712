import type { TypedTableEntry } from '../../receiver/contract.ts';
import { allPresent, kind, nullable, type JsonSchema } from './json-schema.ts';

type Column = TypedTableEntry['contract']['columns'][number];

/** The provider's field a column is read from, as the platform names it. */
function source(column: Column): string {
  const names = column.field.from.join(' or ');
  return column.within === undefined ? names : `${column.within}.${names}`;
}

/**
 * One column as the renderer prints it: numeric is money, a timestamp is the Sydney wall-clock
 * time with its offset, text is text (a date-time's `…_text` column is the time as sent).
 */
function columnSchema(column: Column): JsonSchema {
  const from = source(column);
  const schema =
    column.sqlType === 'numeric'
      ? kind('money', `${from}: the amount.`)
      : column.sqlType === 'timestamp without time zone'
        ? kind('sydneyDateTime', `${from}, read as Sydney wall-clock time.`)
        : column.field.kind === 'date-time'
          ? kind('text', `${from}, exactly as sent.`)
          : kind(
              'text',
              `${from}${column.field.kind === 'identifier' ? ' (an identifier: a JSON number becomes its digits)' : ''}.`,
            );
  return column.nullable ? nullable(schema) : schema;
}

/** What storage adds to every typed row from its delivery. */
const DELIVERY_COLUMNS: Readonly<Record<string, JsonSchema>> = {
  event_name: kind('text', 'The event name of the delivery the row came from.'),
  webhook_id: kind('digits', 'The Webhookid of the delivery the row came from.'),
  received_at: kind('instant', 'When that delivery was received.'),
};

/**
 * `data.fields` of a typed table's event, from the data contract
 * (src/receiver/events/data-contract.ts): every column of the row, always present, null where
 * the contract lets the field be absent. Only `required` fields of the contract are never null.
 */
export function typedFieldsSchema(entry: TypedTableEntry): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const column of entry.contract.columns) properties[column.column] = columnSchema(column);
  for (const column of entry.contract.deliveryColumns) {
    const schema = DELIVERY_COLUMNS[column];
    if (schema === undefined) throw new Error(`${entry.table}: no schema for ${column}`);
    properties[column] = schema;
  }
  return allPresent(
    properties,
    `Every column of the ${entry.table} row, under its column name (docs/feed.md, "The event body").`,
  );
}
