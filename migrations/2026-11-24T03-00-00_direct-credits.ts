import { sql, type Kysely } from 'kysely';

// Frozen in time once landed: this file never imports application code, so it means the same
// thing forever.
//
// InboundDirectCredit (money in over the direct-entry rail) modelled. The platform sends it in
// batches, `{TotalCount, TotalAmount, DirectCreditDetails: [record, …]}`:
//
// - `direct_credits`: one row per record, every published field in its own column,
//   `transaction_id` primary key (a TransactionId again with other content is a conflict, as
//   for the other typed tables), money numeric, `DateTime` as Sydney wall-clock plus the text.
// - `direct_credit_batches`: one row per delivery: the batch's TotalCount and TotalAmount as
//   sent (they belong to the batch, not to any one record) and how many records it held.
// - `payments_received` and `feed` include them (`InboundDirectCredit`, `direct_credit.received`).
// - Deliveries the previous version stored as unmodelled InboundDirectCredit become typed rows
//   (and `modelled`) when the receiver would now accept them; an odd value becomes null with a
//   warning on its delivery, never a failed migration. Each backfilled record gets its feed
//   event (positioned after everything already in the feed).
//
// Neither table has a foreign key to webhook_deliveries (feed_events has none either): a key
// would make every `TRUNCATE webhook_deliveries, …` that does not name these tables fail.

type Reader = 'identifier' | 'text' | 'money';

/** Record fields other than TransactionId, Amount and DateTime: column, reader, published name. */
const RECORD_FIELDS: readonly (readonly [column: string, reader: Reader, field: string])[] = [
  ['batch_id', 'identifier', 'BatchId'],
  ['bsb', 'text', 'Bsb'],
  ['account_number', 'text', 'AccountNumber'],
  ['account_name', 'text', 'AccountName'],
  ['transaction_code', 'text', 'TransactionCode'],
  ['lodgement_ref', 'text', 'LodgementRef'],
  ['remitter_name', 'text', 'RemitterName'],
  ['name_of_user_supplying_file', 'text', 'NameOfUserSupplyingFile'],
  ['number_of_user_supplying_file', 'text', 'NumberOfUserSupplyingFile'],
  ['description_of_entries_on_file', 'text', 'DescriptionOfEntriesOnFile'],
  ['indicator', 'text', 'Indicator'],
  ['withholding_tax_amount', 'money', 'WithholdingTaxAmount'],
  ['source_bsb', 'text', 'SourceBsb'],
  ['source_account_number', 'text', 'SourceAccountNumber'],
  ['receipt_number', 'identifier', 'ReceiptNumber'],
];

/** Every column of direct_credits, in table order. */
const COLUMNS = [
  'transaction_id',
  'webhook_id',
  'batch_id',
  'date_time_local',
  'date_time_text',
  'bsb',
  'account_number',
  'account_name',
  'transaction_code',
  'amount',
  'lodgement_ref',
  'remitter_name',
  'name_of_user_supplying_file',
  'number_of_user_supplying_file',
  'description_of_entries_on_file',
  'indicator',
  'withholding_tax_amount',
  'source_bsb',
  'source_account_number',
  'receipt_number',
  'received_at',
];

const DIRECT_CREDIT_EVENT = 'InboundDirectCredit';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE direct_credits (
      transaction_id text PRIMARY KEY,
      webhook_id bigint NOT NULL,
      batch_id text,
      date_time_local timestamp,
      date_time_text text,
      bsb text,
      account_number text,
      account_name text,
      transaction_code text,
      amount numeric NOT NULL,
      lodgement_ref text,
      remitter_name text,
      name_of_user_supplying_file text,
      number_of_user_supplying_file text,
      description_of_entries_on_file text,
      indicator text,
      withholding_tax_amount numeric,
      source_bsb text,
      source_account_number text,
      receipt_number text,
      received_at timestamptz NOT NULL
    )
  `.execute(db);
  await sql`CREATE INDEX direct_credits_webhook_id ON direct_credits (webhook_id)`.execute(db);
  await sql`
    CREATE TABLE direct_credit_batches (
      webhook_id bigint PRIMARY KEY,
      -- As the batch states them; null when absent or unreadable.
      total_count integer,
      total_amount numeric,
      -- How many records DirectCreditDetails held.
      record_count integer NOT NULL,
      received_at timestamptz NOT NULL
    )
  `.execute(db);

  await createBackfillHelpers(db);
  await backfill(db);
  await dropBackfillHelpers(db);

  await createPaymentsReceived(db, true);
  await createFeedView(db, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The views as migrations 2026-11-22T01 and T03 made them. Feed events and conflicts already
  // recorded for direct credits are kept (positions are never taken back).
  await createPaymentsReceived(db, false);
  await createFeedView(db, false);
  await sql`
    UPDATE webhook_deliveries d SET modelled = false
    WHERE EXISTS (SELECT 1 FROM direct_credit_batches b WHERE b.webhook_id = d.webhook_id)
  `.execute(db);
  await sql`DROP TABLE direct_credit_batches`.execute(db);
  await sql`DROP TABLE direct_credits`.execute(db);
}

/**
 * Session-only functions (pg_temp) that read a stored payload value the way the receiver reads
 * a delivery, but never raise: anything they cannot read is null. Named for this migration (an
 * earlier migration's helpers may live in the same session) and dropped at its end.
 */
async function createBackfillHelpers(db: Kysely<unknown>): Promise<void> {
  // Absent, null and "" all mean no value.
  await sql`
    CREATE OR REPLACE FUNCTION pg_temp.dc_present(v jsonb) RETURNS boolean LANGUAGE sql
    IMMUTABLE AS $$
      SELECT v IS NOT NULL AND jsonb_typeof(v) <> 'null' AND v <> '""'::jsonb
    $$
  `.execute(db);
  // Text: a string ("" is no value) or a whole JSON number as its digits.
  await sql`
    CREATE OR REPLACE FUNCTION pg_temp.dc_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE jsonb_typeof(v)
        WHEN 'string' THEN nullif(v #>> '{}', '')
        WHEN 'number' THEN CASE WHEN v::numeric = trunc(v::numeric)
          AND abs(v::numeric) <= 9007199254740991 THEN trunc(v::numeric)::text END
      END
    $$
  `.execute(db);
  // An identifier: text as sent (leading zeros kept), never blank; or a whole number's digits.
  await sql`
    CREATE OR REPLACE FUNCTION pg_temp.dc_identifier(v jsonb) RETURNS text LANGUAGE sql
    IMMUTABLE AS $$
      SELECT CASE WHEN jsonb_typeof(v) = 'string' AND btrim(v #>> '{}', E' \\t\\r\\n') = ''
        THEN NULL ELSE pg_temp.dc_text(v) END
    $$
  `.execute(db);
  // Money: a JSON number or decimal string, at most 4 places and 15 integer digits.
  await sql`
    CREATE OR REPLACE FUNCTION pg_temp.dc_money(v jsonb) RETURNS numeric LANGUAGE plpgsql
    IMMUTABLE AS $$
      DECLARE n numeric;
      BEGIN
        IF jsonb_typeof(v) = 'number' THEN n := v::numeric;
        ELSIF jsonb_typeof(v) = 'string' AND v #>> '{}' ~ '^-?[0-9]{1,40}(\\.[0-9]{1,40})?$'
          THEN n := (v #>> '{}')::numeric;
        ELSE RETURN NULL;
        END IF;
        n := trim_scale(n); -- as the receiver stores it: "10.0000" is 10
        IF scale(n) > 4 OR abs(n) >= 1e15 THEN RETURN NULL; END IF;
        RETURN n;
      END
    $$
  `.execute(db);
  // A count of records: a whole number or a digit string that fits an integer.
  await sql`
    CREATE OR REPLACE FUNCTION pg_temp.dc_count(v jsonb) RETURNS integer LANGUAGE sql
    IMMUTABLE AS $$
      SELECT CASE
        WHEN jsonb_typeof(v) = 'number' AND v::numeric = trunc(v::numeric)
          AND v::numeric BETWEEN 0 AND 2147483647 THEN v::numeric::integer
        WHEN jsonb_typeof(v) = 'string' AND v #>> '{}' ~ '^[0-9]{1,10}$'
          AND (v #>> '{}')::bigint <= 2147483647 THEN (v #>> '{}')::integer
      END
    $$
  `.execute(db);
  // Date-time: the forms the receiver reads (ISO local with T or a space, seconds and fraction
  // optional, a zone converted to Sydney time; d/MM/yyyy with or without AM/PM; a date alone as
  // midnight), the fraction cut (not rounded) to microseconds; anything else is null.
  await sql`
    CREATE OR REPLACE FUNCTION pg_temp.dc_timestamp(v jsonb) RETURNS timestamp
    LANGUAGE plpgsql IMMUTABLE AS $$
      DECLARE t text; m text[]; local text; hour int;
      BEGIN
        IF jsonb_typeof(v) IS DISTINCT FROM 'string' THEN RETURN NULL; END IF;
        t := btrim(v #>> '{}');
        m := regexp_match(t, '^(\\d{4})-(\\d{2})-(\\d{2})(?:[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d+))?)?(Z|[+-]\\d{2}(?::?\\d{2})?)?)?$', 'i');
        IF m IS NOT NULL THEN
          IF coalesce(m[4], '0')::int > 23 OR coalesce(m[5], '0')::int > 59
            OR coalesce(m[6], '0')::int > 59 THEN RETURN NULL; END IF;
          local := format('%s-%s-%s %s:%s:%s.%s', m[1], m[2], m[3], coalesce(m[4], '00'),
            coalesce(m[5], '00'), coalesce(m[6], '00'), left(coalesce(m[7], '0'), 6));
          IF m[8] IS NULL THEN RETURN local::timestamp; END IF;
          -- Checked first: a real local date, whatever the zone.
          PERFORM local::timestamp;
          RETURN (local || upper(m[8]))::timestamptz AT TIME ZONE 'Australia/Sydney';
        END IF;
        m := regexp_match(t, '^(\\d{1,2})/(\\d{1,2})/(\\d{4})(?: (\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d+))?)?(?: ?([AP]M))?)?$', 'i');
        IF m IS NULL THEN RETURN NULL; END IF;
        hour := coalesce(m[4], '0')::int;
        IF m[8] IS NOT NULL THEN
          IF hour NOT BETWEEN 1 AND 12 THEN RETURN NULL; END IF;
          hour := hour % 12 + CASE WHEN upper(m[8]) = 'PM' THEN 12 ELSE 0 END;
        END IF;
        IF hour > 23 OR coalesce(m[5], '0')::int > 59 OR coalesce(m[6], '0')::int > 59
          THEN RETURN NULL; END IF;
        RETURN format('%s-%s-%s %s:%s:%s.%s', m[3], lpad(m[2], 2, '0'), lpad(m[1], 2, '0'),
          lpad(hour::text, 2, '0'), coalesce(m[5], '00'), coalesce(m[6], '00'),
          left(coalesce(m[7], '0'), 6))::timestamp;
      EXCEPTION WHEN others THEN RETURN NULL;
      END
    $$
  `.execute(db);
}

async function dropBackfillHelpers(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE dc_backfill_record, dc_backfill_batch`.execute(db);
  await sql`
    DROP FUNCTION pg_temp.dc_timestamp(jsonb), pg_temp.dc_count(jsonb), pg_temp.dc_money(jsonb),
      pg_temp.dc_identifier(jsonb), pg_temp.dc_text(jsonb), pg_temp.dc_present(jsonb)
  `.execute(db);
}

const READERS: Record<Reader, string> = {
  identifier: 'pg_temp.dc_identifier',
  text: 'pg_temp.dc_text',
  money: 'pg_temp.dc_money',
};

const read = (reader: Reader, field: string, from = 'e.v') =>
  sql`${sql.raw(READERS[reader])}(${sql.raw(from)} -> ${sql.lit(field)})`;

async function backfill(db: Kysely<unknown>): Promise<void> {
  // The canonical spelling, as the receiver stores a modelled event (unless that would make the
  // same body twice for the event: that one keeps the name it came under).
  await sql`
    UPDATE webhook_deliveries d SET event_name = ${DIRECT_CREDIT_EVENT}
    FROM (
      SELECT DISTINCT ON (body_sha256) webhook_id FROM webhook_deliveries
      WHERE lower(event_name) = 'inbounddirectcredit' AND event_name <> ${DIRECT_CREDIT_EVENT}
        AND NOT modelled
      ORDER BY body_sha256, received_at, webhook_id
    ) AS first
    WHERE d.webhook_id = first.webhook_id
      AND NOT EXISTS (
        SELECT 1 FROM webhook_deliveries o
        WHERE o.event_name = ${DIRECT_CREDIT_EVENT} AND o.body_sha256 = d.body_sha256
      )
  `.execute(db);

  // The batches the receiver now accepts: an object whose DirectCreditDetails is an array of
  // records, each with a TransactionId and a readable Amount. Any other stays unmodelled, as
  // the receiver would refuse it whole.
  await sql`
    CREATE TEMP TABLE dc_backfill_batch AS
    SELECT d.webhook_id, d.received_at, d.payload
    FROM webhook_deliveries d
    WHERE lower(d.event_name) = 'inbounddirectcredit' AND NOT d.modelled
      AND jsonb_typeof(d.payload) = 'object'
      AND jsonb_typeof(d.payload -> 'DirectCreditDetails') = 'array'
      AND NOT EXISTS (
        SELECT 1 FROM jsonb_array_elements(d.payload -> 'DirectCreditDetails') AS e(v)
        WHERE jsonb_typeof(e.v) <> 'object'
          OR ${read('identifier', 'TransactionId')} IS NULL
          OR ${read('money', 'Amount')} IS NULL
      )
  `.execute(db);

  // Each record as the row the receiver would write, numbered per TransactionId in the order
  // the receiver would have met them (the first stands; a later one that differs is a conflict).
  await sql`
    CREATE TEMP TABLE dc_backfill_record AS
    SELECT r.*, row_number() OVER (PARTITION BY r.transaction_id
        ORDER BY r.received_at, r.webhook_id, r.record_index) AS nth
    FROM (
      SELECT ${read('identifier', 'TransactionId')} AS transaction_id, b.webhook_id,
        pg_temp.dc_timestamp(e.v -> 'DateTime') AS date_time_local,
        CASE WHEN jsonb_typeof(e.v -> 'DateTime') = 'string'
          THEN nullif(e.v ->> 'DateTime', '') END AS date_time_text,
        ${read('money', 'Amount')} AS amount,
        ${sql.join(RECORD_FIELDS.map(([column, reader, field]) => sql`${read(reader, field)} AS ${sql.id(column)}`))},
        b.received_at, (e.i - 1)::int AS record_index, e.v AS record
      FROM dc_backfill_batch b
      CROSS JOIN LATERAL jsonb_array_elements(b.payload -> 'DirectCreditDetails')
        WITH ORDINALITY AS e(v, i)
    ) AS r
  `.execute(db);

  const columns = sql.join(COLUMNS.map((column) => sql.id(column)));
  await sql`
    INSERT INTO direct_credits (${columns})
    SELECT ${columns} FROM dc_backfill_record WHERE nth = 1
    ORDER BY received_at, webhook_id, record_index
    ON CONFLICT DO NOTHING
  `.execute(db);
  await sql`
    INSERT INTO direct_credit_batches (webhook_id, total_count, total_amount, record_count,
      received_at)
    SELECT webhook_id, pg_temp.dc_count(payload -> 'TotalCount'),
      pg_temp.dc_money(payload -> 'TotalAmount'),
      jsonb_array_length(payload -> 'DirectCreditDetails'), received_at
    FROM dc_backfill_batch
    ON CONFLICT DO NOTHING
  `.execute(db);

  // The feed: each record's event, then each conflict's (after its key's own), as the store
  // statement writes them. Positions are assigned after commit, above everything already there.
  await sql`
    INSERT INTO feed_events (type, event_name, business_key, webhook_id)
    SELECT 'direct_credit.received', ${DIRECT_CREDIT_EVENT}, transaction_id, webhook_id
    FROM direct_credits
    ORDER BY received_at, webhook_id, transaction_id
  `.execute(db);
  await sql`
    WITH found AS (
      INSERT INTO conflicts (table_name, event_name, business_key, first_webhook_id, webhook_id,
        record_index, differences)
      SELECT 'direct_credits', ${DIRECT_CREDIT_EVENT}, c.transaction_id, s.webhook_id,
        c.webhook_id, c.record_index, d.differences
      FROM dc_backfill_record c
      JOIN direct_credits s USING (transaction_id)
      CROSS JOIN LATERAL (
        SELECT typed_row_differences(to_jsonb(s),
          to_jsonb(c) - 'nth' - 'record_index' - 'record') AS differences
      ) AS d
      WHERE c.nth > 1 AND d.differences IS NOT NULL
      ORDER BY c.received_at, c.webhook_id, c.record_index
      ON CONFLICT DO NOTHING
      RETURNING id, webhook_id, business_key
    )
    INSERT INTO feed_events (type, event_name, business_key, webhook_id, conflict_id)
    SELECT 'conflict.detected', ${DIRECT_CREDIT_EVENT}, business_key, webhook_id, id
    FROM found ORDER BY id
  `.execute(db);

  await markModelled(db);
}

/**
 * The accepted deliveries become modelled, each with the warnings the receiver would have
 * recorded (at most 100 and a count): a value present but unreadable (stored as null), totals
 * that are unreadable or do not match the records.
 */
async function markModelled(db: Kysely<unknown>): Promise<void> {
  // In the receiver's order of reading: BatchId, DateTime, then the rest.
  const [batchId, ...rest] = RECORD_FIELDS.map(
    ([column, , field]) => sql`${sql.lit(field)}, c.${sql.id(column)} IS NULL`,
  );
  const fields = [batchId, sql`'DateTime', c.date_time_local IS NULL`, ...rest].map(
    (field, index) => sql`(${sql.lit(index)}, ${field})`,
  );
  await sql`
    WITH found AS (
      SELECT c.webhook_id, 0 AS part, c.record_index, f.ordinal,
        jsonb_build_object('path', p.path, 'message', p.path
          || ' could not be read when the upgrade modelled this delivery; '
          || CASE WHEN f.field = 'DateTime' AND c.date_time_text IS NOT NULL
            THEN 'the text is kept' ELSE 'stored as null' END) AS warning
      FROM dc_backfill_record c
      CROSS JOIN LATERAL (VALUES ${sql.join(fields)}) AS f(ordinal, field, unread)
      CROSS JOIN LATERAL (
        SELECT format('DirectCreditDetails[%s].%s', c.record_index, f.field) AS path
      ) AS p
      WHERE f.unread AND pg_temp.dc_present(c.record -> f.field)
      UNION ALL
      SELECT b.webhook_id, 1, 0, t.ordinal,
        jsonb_build_object('path', t.field, 'message', t.field || ' ' || t.reason)
      FROM dc_backfill_batch b
      CROSS JOIN LATERAL (
        SELECT count(*) AS n, coalesce(sum(c.amount), 0) AS total
        FROM dc_backfill_record c WHERE c.webhook_id = b.webhook_id
      ) AS r
      CROSS JOIN LATERAL (
        SELECT pg_temp.dc_count(b.payload -> 'TotalCount') AS count,
          pg_temp.dc_money(b.payload -> 'TotalAmount') AS amount
      ) AS total
      CROSS JOIN LATERAL (VALUES
        (1, 'TotalCount', CASE WHEN pg_temp.dc_present(b.payload -> 'TotalCount')
          AND total.count IS NULL THEN 'could not be read; stored as null' END),
        (2, 'TotalAmount', CASE WHEN pg_temp.dc_present(b.payload -> 'TotalAmount')
          AND total.amount IS NULL THEN 'could not be read; stored as null' END),
        (3, 'TotalCount', CASE WHEN total.count <> r.n THEN
          format('is %s but DirectCreditDetails holds %s records', total.count, r.n) END),
        (4, 'TotalAmount', CASE WHEN total.amount <> r.total THEN
          format('is %s but the records'' amounts add up to %s', total.amount,
            trim_scale(r.total)) END)
      ) AS t(ordinal, field, reason)
      WHERE t.reason IS NOT NULL
    ),
    numbered AS (
      SELECT webhook_id, warning,
        row_number() OVER (PARTITION BY webhook_id ORDER BY part, record_index, ordinal) AS k,
        count(*) OVER (PARTITION BY webhook_id) AS n
      FROM found
    ),
    listed AS (
      SELECT webhook_id,
        jsonb_agg(warning ORDER BY k) FILTER (WHERE k <= 100)
          || CASE WHEN max(n) > 100 THEN jsonb_build_array(jsonb_build_object('path', '',
            'message', format('%s more warnings not listed (%s in all)', max(n) - 100, max(n))))
            ELSE '[]'::jsonb END AS list
      FROM numbered GROUP BY webhook_id
    )
    UPDATE webhook_deliveries d
    SET modelled = true, warnings = d.warnings || coalesce(l.list, '[]'::jsonb)
    FROM dc_backfill_batch b LEFT JOIN listed l USING (webhook_id)
    WHERE d.webhook_id = b.webhook_id
  `.execute(db);
}

/** The payment tables' shared columns (as migration 2026-11-22T01 lists them). */
const SHARED = [
  'transaction_id',
  'webhook_id',
  'amount',
  'date_time_local',
  'date_time_text',
  'remitter_name',
  'source_bsb',
  'source_account_number',
  'source_account_name',
  'bsb',
  'account_number',
  'account_name',
  'pay_id',
  'pay_id_name',
  'end_to_end_id',
  'remittance_information',
  'receipt_number',
  'received_at',
];

/**
 * `payments_received`, the same columns as before, now with direct credits: the payer's
 * LodgementRef is their remittance information; what the direct-entry record does not carry
 * (the payer's account name, PayID, end-to-end id) is null.
 */
async function createPaymentsReceived(db: Kysely<unknown>, withDirectCredits: boolean) {
  const shared = sql.raw(SHARED.join(', '));
  const fromDirectCredits: Record<string, string> = {
    source_account_name: 'NULL::text',
    pay_id: 'NULL::text',
    pay_id_name: 'NULL::text',
    end_to_end_id: 'NULL::text',
    remittance_information: 'lodgement_ref',
  };
  const direct = sql.raw(SHARED.map((column) => fromDirectCredits[column] ?? column).join(', '));
  await sql`
    CREATE OR REPLACE VIEW payments_received AS
      SELECT 'NPPReceivePayment' AS event_name, ${shared},
        date_time_local AT TIME ZONE 'Australia/Sydney' AS date_time
      FROM npp_payments
      UNION ALL
      SELECT 'PayToReceivePayment', ${shared}, date_time_local AT TIME ZONE 'Australia/Sydney'
      FROM payto_payments
      ${
        withDirectCredits
          ? sql`UNION ALL
      SELECT ${sql.lit(DIRECT_CREDIT_EVENT)}, ${direct},
        date_time_local AT TIME ZONE 'Australia/Sydney'
      FROM direct_credits`
          : sql``
      }
  `.execute(db);
}

/** The `feed` view (migration 2026-11-22T03), with the direct credit's row as its `fields`. */
async function createFeedView(db: Kysely<unknown>, withDirectCredits: boolean) {
  await sql`
    CREATE OR REPLACE VIEW feed AS
      SELECT e.position, e.id, e.type, e.event_name, e.business_key, e.webhook_id,
        e.created_at, d.received_at,
        CASE e.type
          WHEN 'payment.received' THEN
            (SELECT to_jsonb(p) FROM npp_payments p WHERE p.transaction_id = e.business_key)
          WHEN 'payto_payment.received' THEN
            (SELECT to_jsonb(p) FROM payto_payments p WHERE p.transaction_id = e.business_key)
          WHEN 'credit_rejection.received' THEN
            (SELECT to_jsonb(r) FROM credit_rejections r
             WHERE r.event_name = e.event_name AND r.rejection_id = e.business_key)
          ${
            withDirectCredits
              ? sql`WHEN 'direct_credit.received' THEN
            (SELECT to_jsonb(c) FROM direct_credits c WHERE c.transaction_id = e.business_key)`
              : sql``
          }
          WHEN 'conflict.detected' THEN
            (SELECT to_jsonb(c) - 'resolved_at' - 'resolution' FROM conflicts c WHERE c.id = e.conflict_id)
        END AS fields,
        d.payload
      FROM feed_events e
      JOIN webhook_deliveries d ON d.webhook_id = e.webhook_id
      WHERE e.position IS NOT NULL
  `.execute(db);
}
