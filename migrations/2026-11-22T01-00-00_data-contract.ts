import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// The data contract: every field of the provider's NPPReceivePayment and rejection record in a
// typed column, PayToReceivePayment modelled in its own table, the body key per event, warnings
// kept with each delivery, and conflicts (a business key re-sent with other content) recorded.
// Existing rows are backfilled from the stored payload; an odd value becomes null, never a
// failed migration.

type Column = readonly [name: string, type: 'text' | 'numeric'];

/** NPPReceivePayment fields the initial schema did not keep (provider name in the comment). */
const PAYMENT_COLUMNS: readonly (Column & { from: readonly string[] })[] = [
  col('account_name', 'text', 'AccountName'),
  col('pay_id_name', 'text', 'PayIdName'),
  col('source_bsb', 'text', 'SourceBsb'),
  col('source_account_number', 'text', 'SourceAccountNumber'),
  col('source_account_name', 'text', 'SourceAccountName'),
  col('category_purpose_code', 'text', 'CategoryPurposeCode'),
  col('reconciliation_rule_reference', 'text', 'ReconciliationRuleReference'),
  col('creditor_reference_information', 'text', 'CreditorReferenceInformation'),
  col('ultimate_creditor_name', 'text', 'UltimateCreditorName'),
  col('usi_number', 'text', 'USINumber'),
  // The published examples spell it USIScheme; the interface document USICreditorScheme.
  col('usi_creditor_scheme', 'text', 'USICreditorScheme', 'USIScheme'),
  col('ledger_account_number', 'text', 'LedgerAccountNumber'),
  col('ledger_unique_reference', 'text', 'LedgerUniqueReference'),
];

/** Rejection-record fields the initial schema did not keep. */
const REJECTION_COLUMNS: readonly (Column & { from: readonly string[] })[] = [
  col('transaction_code', 'text', 'transactionCode'),
  col('status', 'text', 'status'),
  col('pay_id', 'text', 'payId'),
  col('pay_id_name', 'text', 'payIdName'),
  col('end_to_end_id', 'text', 'endToEndId'),
  col('source_bsb', 'text', 'sourceBsb'),
  col('source_account_number', 'text', 'sourceAccountNumber'),
  col('source_account_name', 'text', 'sourceAccountName'),
  col('indicator', 'text', 'indicator'),
  col('withholding_tax_amount', 'numeric', 'withholdingTaxAmount'),
  col('name_of_user_supplying_file', 'text', 'nameOfUserSupplyingFile'),
  col('number_of_user_supplying_file', 'text', 'numberOfUserSupplyingFile'),
  col('description_of_entries_on_file', 'text', 'descriptionOfEntriesOnFile'),
  col('ledger_account_number', 'text', 'ledgerAccountNumber'),
  col('ledger_unique_reference', 'text', 'ledgerUniqueReference'),
];

/** PayToReceivePayment adds these to the NPPReceivePayment fields. */
const PAYTO_COLUMNS: readonly (Column & { from: readonly string[] })[] = [
  col('mms_id', 'text', 'MmsId', 'MMSId'),
  col('initiating_party_name', 'text', 'InitiatingPartyName'),
  col('npp_instruction_id', 'text', 'NPPInstructionId'),
];

function col(name: string, type: Column[1], ...from: string[]) {
  return Object.assign([name, type] as const, { from });
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await createBackfillHelpers(db);

  // Deliveries: warnings, and the body key per event (the same bytes may be two events).
  await sql`ALTER TABLE webhook_deliveries ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]'`.execute(
    db,
  );
  await sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_body_sha256_key`.execute(
    db,
  );
  await sql`
    ALTER TABLE webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_body_once UNIQUE (event_name, body_sha256)
  `.execute(db);

  for (const [name, type] of PAYMENT_COLUMNS) {
    await sql`ALTER TABLE npp_payments ADD COLUMN ${sql.id(name)} ${sql.raw(type)}`.execute(db);
  }
  for (const [name, type] of REJECTION_COLUMNS) {
    await sql`ALTER TABLE credit_rejections ADD COLUMN ${sql.id(name)} ${sql.raw(type)}`.execute(
      db,
    );
  }
  await backfillPayments(db);
  await backfillRejections(db);

  await createPayToPayments(db);
  await backfillPayTo(db);
  await createConflicts(db);
  await createViews(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP VIEW IF EXISTS payments_received, open_conflicts`.execute(db);
  await sql`DROP TABLE conflicts`.execute(db);
  await sql`DROP FUNCTION typed_row_differences(jsonb, jsonb)`.execute(db);
  await sql`DROP TABLE payto_payments`.execute(db);
  for (const [name] of REJECTION_COLUMNS) {
    await sql`ALTER TABLE credit_rejections DROP COLUMN ${sql.id(name)}`.execute(db);
  }
  for (const [name] of PAYMENT_COLUMNS) {
    await sql`ALTER TABLE npp_payments DROP COLUMN ${sql.id(name)}`.execute(db);
  }
  await sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_body_once`.execute(
    db,
  );
  await sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_body_sha256_key UNIQUE (body_sha256)`.execute(
    db,
  );
  await sql`ALTER TABLE webhook_deliveries DROP COLUMN warnings`.execute(db);
}

/**
 * Session-only functions (pg_temp) that read a stored payload value the way the receiver reads
 * a delivery, but never raise: anything they cannot read is null.
 */
async function createBackfillHelpers(db: Kysely<unknown>): Promise<void> {
  // Text: a string ("" is no value) or a whole JSON number as its digits.
  await sql`
    CREATE FUNCTION pg_temp.contract_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE jsonb_typeof(v)
        WHEN 'string' THEN nullif(v #>> '{}', '')
        WHEN 'number' THEN CASE WHEN v::numeric = trunc(v::numeric)
          AND abs(v::numeric) <= 9007199254740991 THEN trunc(v::numeric)::text END
      END
    $$
  `.execute(db);
  // Money: a JSON number or decimal string, at most 4 places and 15 integer digits.
  await sql`
    CREATE FUNCTION pg_temp.contract_money(v jsonb) RETURNS numeric LANGUAGE plpgsql IMMUTABLE AS $$
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
  // Date-time: the forms the receiver reads (ISO local, with a zone converted to Sydney time;
  // d/MM/yyyy with or without AM/PM; seconds optional); anything else, or no real date, is null.
  await sql`
    CREATE FUNCTION pg_temp.contract_timestamp(v jsonb) RETURNS timestamp LANGUAGE plpgsql
    IMMUTABLE AS $$
      DECLARE t text := btrim(v #>> '{}'); m text[];
      BEGIN
        IF jsonb_typeof(v) <> 'string' THEN RETURN NULL; END IF;
        m := regexp_match(t, '^(\\d{4})-(\\d{2})-(\\d{2})(?:[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,30}))?)?)?(Z|[+-]\\d{2}(?::?\\d{2})?)?$', 'i');
        IF m IS NOT NULL THEN
          IF m[8] IS NOT NULL THEN
            RETURN (t::timestamptz) AT TIME ZONE 'Australia/Sydney';
          END IF;
          RETURN make_timestamp(m[1]::int, m[2]::int, m[3]::int, coalesce(m[4], '0')::int,
            coalesce(m[5], '0')::int,
            (coalesce(m[6], '0') || '.' || left(coalesce(m[7], '0'), 6))::double precision);
        END IF;
        m := regexp_match(t, '^(\\d{1,2})/(\\d{1,2})/(\\d{4})(?: (\\d{1,2}):(\\d{2})(?::(\\d{2}))?(?: ?([AP]M))?)?$', 'i');
        IF m IS NULL THEN RETURN NULL; END IF;
        RETURN make_timestamp(m[3]::int, m[2]::int, m[1]::int,
          CASE WHEN m[7] IS NULL THEN coalesce(m[4], '0')::int
               WHEN m[4]::int NOT BETWEEN 1 AND 12 THEN NULL
               ELSE m[4]::int % 12 + CASE WHEN upper(m[7]) = 'PM' THEN 12 ELSE 0 END END,
          coalesce(m[5], '0')::int, coalesce(m[6], '0')::double precision);
      EXCEPTION WHEN others THEN RETURN NULL;
      END
    $$
  `.execute(db);
}

/** `col = coalesce(pg_temp.contract_x(source -> 'Name'), ...)`: the first variant with a value. */
function assignments(columns: typeof PAYMENT_COLUMNS, source: string) {
  return sql.join(
    columns.map((column) => {
      const reader = column[1] === 'numeric' ? 'pg_temp.contract_money' : 'pg_temp.contract_text';
      const reads = column.from.map(
        (field) => sql`${sql.raw(reader)}(${sql.raw(source)} -> ${sql.lit(field)})`,
      );
      return sql`${sql.id(column[0])} = coalesce(${sql.join(reads)})`;
    }),
  );
}

async function backfillPayments(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE npp_payments p SET ${assignments(PAYMENT_COLUMNS, 'd.payload')}
    FROM webhook_deliveries d
    WHERE d.webhook_id = p.webhook_id AND jsonb_typeof(d.payload) = 'object'
  `.execute(db);
}

/** Each row's record: the first element of the stored array with its id (or the one object). */
async function backfillRejections(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE credit_rejections r SET ${assignments(REJECTION_COLUMNS, 'src.v')}
    FROM (
      SELECT old.event_name, old.rejection_id, rec.v
      FROM credit_rejections old
      JOIN webhook_deliveries d ON d.webhook_id = old.webhook_id
      CROSS JOIN LATERAL (
        SELECT e.v FROM jsonb_array_elements(
            CASE jsonb_typeof(d.payload) WHEN 'array' THEN d.payload
              WHEN 'object' THEN jsonb_build_array(d.payload) ELSE '[]' END
          ) WITH ORDINALITY AS e(v, i)
        WHERE jsonb_typeof(e.v) = 'object'
          AND pg_temp.contract_text(e.v -> 'id') = old.rejection_id
        ORDER BY i LIMIT 1
      ) AS rec
    ) AS src
    WHERE r.event_name = src.event_name AND r.rejection_id = src.rejection_id
  `.execute(db);
}

/**
 * PayToReceivePayment: the NPPReceivePayment columns plus three of its own, in a table of its
 * own so that a ledger reading npp_payments never counts a PayTo payment it did not expect.
 */
async function createPayToPayments(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payto_payments (
      transaction_id text PRIMARY KEY,
      webhook_id bigint NOT NULL REFERENCES webhook_deliveries (webhook_id),
      end_to_end_id text,
      amount numeric NOT NULL,
      date_time_local timestamp,
      date_time_text text,
      receipt_number text,
      pay_id text,
      remitter_name text,
      bsb text,
      account_number text,
      remittance_information text,
      refund_inbound_amount numeric,
      refund_amount numeric,
      refund_id text,
      received_at timestamptz NOT NULL,
      ${sql.join(PAYMENT_COLUMNS.map(([name, type]) => sql`${sql.id(name)} ${sql.raw(type)}`))},
      ${sql.join(PAYTO_COLUMNS.map(([name, type]) => sql`${sql.id(name)} ${sql.raw(type)}`))}
    )
  `.execute(db);
  await sql`CREATE INDEX payto_payments_webhook_id ON payto_payments (webhook_id)`.execute(db);
}

/**
 * Deliveries stored as unmodelled PayToReceivePayment (any spelling of the name) become typed
 * rows when they carry a TransactionId and a readable Amount; the others stay unmodelled.
 */
async function backfillPayTo(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE webhook_deliveries SET event_name = 'PayToReceivePayment'
    WHERE lower(event_name) = 'paytoreceivepayment' AND NOT modelled
  `.execute(db);
  const all = [...PAYMENT_COLUMNS, ...PAYTO_COLUMNS];
  const text = (field: string) => sql`pg_temp.contract_text(d.payload -> ${sql.lit(field)})`;
  const money = (path: string) => sql`pg_temp.contract_money(d.payload #> ${sql.lit(path)})`;
  await sql`
    INSERT INTO payto_payments (transaction_id, webhook_id, end_to_end_id, amount,
      date_time_local, date_time_text, receipt_number, pay_id, remitter_name, bsb,
      account_number, remittance_information, refund_inbound_amount, refund_amount, refund_id,
      received_at, ${sql.join(all.map(([name]) => sql.id(name)))})
    SELECT ${text('TransactionId')}, d.webhook_id, ${text('EndToEndId')},
      ${money('{Amount}')}, pg_temp.contract_timestamp(d.payload -> 'DateTime'),
      CASE WHEN jsonb_typeof(d.payload -> 'DateTime') = 'string'
        THEN nullif(d.payload ->> 'DateTime', '') END,
      ${text('ReceiptNumber')}, ${text('PayId')}, ${text('RemitterName')}, ${text('Bsb')},
      ${text('AccountNumber')}, ${text('PaymentDescription')},
      ${money('{RefundDetails,InboundAmount}')}, ${money('{RefundDetails,RefundAmount}')},
      CASE WHEN jsonb_typeof(d.payload -> 'RefundDetails') = 'object'
        THEN pg_temp.contract_text(d.payload #> '{RefundDetails,RefundId}') END,
      d.received_at,
      ${sql.join(all.map((column) => sql`coalesce(${sql.join(column.from.map(text))})`))}
    FROM webhook_deliveries d
    WHERE d.event_name = 'PayToReceivePayment' AND NOT d.modelled
      AND jsonb_typeof(d.payload) = 'object'
      AND ${text('TransactionId')} IS NOT NULL AND ${money('{Amount}')} IS NOT NULL
    ORDER BY d.received_at, d.webhook_id
    ON CONFLICT DO NOTHING
  `.execute(db);
  await sql`
    UPDATE webhook_deliveries d SET modelled = true
    WHERE d.event_name = 'PayToReceivePayment' AND NOT d.modelled
      AND EXISTS (SELECT 1 FROM payto_payments p WHERE p.webhook_id = d.webhook_id)
  `.execute(db);
}

/**
 * A business key (TransactionId, rejection id) that arrives again, under another Webhookid or
 * twice in one body, with different content. The first typed row is never changed.
 */
async function createConflicts(db: Kysely<unknown>): Promise<void> {
  // The typed-row fields that differ, as [{field, first, second}] (null when none differ).
  // Bookkeeping columns are not content; the date-time text is, unless it reads as the same time.
  await sql`
    CREATE FUNCTION typed_row_differences(first jsonb, second jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT jsonb_agg(jsonb_build_object('field', f.key, 'first', f.value,
          'second', coalesce(second -> f.key, 'null')) ORDER BY f.key)
      FROM jsonb_each(first) AS f
      WHERE f.key NOT IN ('webhook_id', 'received_at')
        AND f.value IS DISTINCT FROM coalesce(second -> f.key, 'null')
        AND NOT (f.key = 'date_time_text' AND first -> 'date_time_local' <> 'null'
          AND first -> 'date_time_local' = second -> 'date_time_local')
    $$
  `.execute(db);
  await sql`
    CREATE TABLE conflicts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      table_name text NOT NULL,
      event_name text NOT NULL,
      business_key text NOT NULL,
      first_webhook_id bigint NOT NULL REFERENCES webhook_deliveries (webhook_id),
      webhook_id bigint NOT NULL REFERENCES webhook_deliveries (webhook_id),
      record_index int NOT NULL,
      differences jsonb NOT NULL,
      detected_at timestamptz NOT NULL DEFAULT now(),
      resolved_at timestamptz,
      resolution text,
      CONSTRAINT conflicts_once UNIQUE (table_name, event_name, business_key, webhook_id, record_index)
    )
  `.execute(db);
  await sql`CREATE INDEX conflicts_webhook_id ON conflicts (webhook_id)`.execute(db);
  await sql`CREATE INDEX conflicts_first_webhook_id ON conflicts (first_webhook_id)`.execute(db);
  await sql`CREATE INDEX conflicts_open ON conflicts (detected_at) WHERE resolved_at IS NULL`.execute(
    db,
  );
}

/** The two queries merchants ask most, made simple. */
async function createViews(db: Kysely<unknown>): Promise<void> {
  const shared = sql.raw(
    [
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
    ].join(', '),
  );
  await sql`
    CREATE VIEW payments_received AS
      SELECT 'NPPReceivePayment' AS event_name, ${shared},
        date_time_local AT TIME ZONE 'Australia/Sydney' AS date_time
      FROM npp_payments
      UNION ALL
      SELECT 'PayToReceivePayment', ${shared}, date_time_local AT TIME ZONE 'Australia/Sydney'
      FROM payto_payments
  `.execute(db);
  await sql`
    CREATE VIEW open_conflicts AS
      SELECT * FROM conflicts WHERE resolved_at IS NULL
  `.execute(db);
}
