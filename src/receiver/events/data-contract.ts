import { canonicalAmount, toUnits } from '../../lib/money.ts';

/**
 * The data contract, in one place: every field of every modelled event, as the platform names
 * it, what kind of value it is, and the typed-row column it fills. Everything else that knows
 * the fields derives from these lists:
 * - each event's parser is built from its table's contract (contract-model.ts), and reads
 *   records with them (record-reader.ts);
 * - the row types (`TypedRow`, and `TypedRows` in types.ts) and the typed tables' Kysely
 *   interfaces (storage/tables.ts) are computed from them;
 * - storage's row JSON takes its column names from `COLUMN_NAMES` (store-deliveries.ts);
 * - the tests iterate `TYPED_ROW_CONTRACTS` and send `samplePayload(event)`;
 * - tools build bodies from `sampleRecord` / `samplePayload` (exported by src/receiver/index.ts).
 *
 * Conventions shared by every row:
 * - money is a decimal string with up to 4 places ("10.5", "0.0001"), never a number
 *   (a `numeric` column);
 * - a provider date-time fills two columns, `<key>Local`, Sydney wall-clock time as
 *   "YYYY-MM-DD HH:MM:SS[.ffffff]" (no zone: the provider sends none; a `timestamp` column),
 *   and `<key>Text`, the original text;
 * - an identifier is text exactly as sent (a JSON number becomes its digits);
 * - an optional field the provider sent as absent, null or "" is null, and so is one that
 *   could not be read (with a warning on the delivery). Only `required` fields refuse a body.
 */

export type FieldKind = 'identifier' | 'text' | 'money' | 'date-time';

/**
 * One provider field and the column(s) it fills. `from` lists the provider's spellings (the
 * published examples say USIScheme where the interface document says USICreditorScheme); the
 * first one that holds a value is read. `key` is the row's key and, in snake_case, its column
 * (`payIdName` is `pay_id_name`). `example` is a value as the platform sends it, canonical
 * where the column is (money without trailing zeros, a date-time without a fraction), so a
 * stored sample can be compared field by field.
 */
export interface FieldSpec {
  readonly key: string;
  readonly from: readonly string[];
  readonly kind: FieldKind;
  /** Required fields are the contract's reasons to refuse; every other field is lenient. */
  readonly required?: true;
  readonly example: string;
}

/**
 * NPPReceivePayment, field by field (PascalCase, as the interface document and the published
 * schema `event.receivePaymentWebhook` name them). Unknown fields stay in the raw body.
 */
const PAYMENT_FIELDS = [
  {
    key: 'transactionId',
    from: ['TransactionId'],
    kind: 'identifier',
    required: true,
    example: 'N00100537810',
  },
  { key: 'amount', from: ['Amount'], kind: 'money', required: true, example: '1875.45' },
  { key: 'dateTime', from: ['DateTime'], kind: 'date-time', example: '2024-06-14T16:45:09' },
  { key: 'endToEndId', from: ['EndToEndId'], kind: 'text', example: 'E2E-20240614-0077' },
  // An integer in the interface document, a digit string in the published examples.
  { key: 'receiptNumber', from: ['ReceiptNumber'], kind: 'identifier', example: '5679010' },
  // The payee PayID the payer paid to.
  { key: 'payId', from: ['PayId'], kind: 'text', example: 'pay@acme.example.com.au' },
  { key: 'payIdName', from: ['PayIdName'], kind: 'text', example: 'ACME PTY LTD' },
  { key: 'remitterName', from: ['RemitterName'], kind: 'text', example: 'MORGAN CITIZEN' }, // the payer
  // The receiving account; SourceBsb is the payer's.
  { key: 'bsb', from: ['Bsb'], kind: 'text', example: '802-985' },
  { key: 'accountNumber', from: ['AccountNumber'], kind: 'text', example: '419001918' },
  { key: 'accountName', from: ['AccountName'], kind: 'text', example: 'Acme Receivables' },
  { key: 'sourceBsb', from: ['SourceBsb'], kind: 'text', example: '062-000' },
  { key: 'sourceAccountNumber', from: ['SourceAccountNumber'], kind: 'text', example: '10203040' },
  {
    key: 'sourceAccountName',
    from: ['SourceAccountName'],
    kind: 'text',
    example: 'MORGAN CITIZEN',
  },
  {
    key: 'remittanceInformation',
    from: ['PaymentDescription'],
    kind: 'text',
    example: 'INV-20240614-77',
  },
  {
    key: 'creditorReferenceInformation',
    from: ['CreditorReferenceInformation'],
    kind: 'text',
    example: 'RF18539007547034',
  },
  {
    key: 'reconciliationRuleReference',
    from: ['ReconciliationRuleReference'],
    kind: 'text',
    example: 'RR22350',
  },
  { key: 'categoryPurposeCode', from: ['CategoryPurposeCode'], kind: 'text', example: 'SUPP' },
  {
    key: 'ultimateCreditorName',
    from: ['UltimateCreditorName'],
    kind: 'text',
    example: 'ACME HOLDINGS PTY LTD',
  },
  { key: 'usiNumber', from: ['USINumber'], kind: 'text', example: 'ABC0001AU' },
  {
    key: 'usiCreditorScheme',
    from: ['USICreditorScheme', 'USIScheme'],
    kind: 'text',
    example: 'USI',
  },
  { key: 'ledgerAccountNumber', from: ['LedgerAccountNumber'], kind: 'text', example: '5520001' },
  {
    key: 'ledgerUniqueReference',
    from: ['LedgerUniqueReference'],
    kind: 'text',
    example: 'LUR-000777',
  },
] as const satisfies readonly FieldSpec[];

/** Where a payment's refund parts sit: an object inside the body. */
const REFUND_DETAILS = 'RefundDetails';

/** RefundDetails (from the interface document); each part optional. */
const REFUND_FIELDS = [
  { key: 'refundInboundAmount', from: ['InboundAmount'], kind: 'money', example: '1875.45' },
  { key: 'refundAmount', from: ['RefundAmount'], kind: 'money', example: '75.45' },
  { key: 'refundId', from: ['RefundId'], kind: 'identifier', example: 'RF-000312' },
] as const satisfies readonly FieldSpec[];

/** PayToReceivePayment: the NPPReceivePayment fields and its own (the PayTo report spells MmsId "MMSId"). */
const PAYTO_FIELDS = [
  ...PAYMENT_FIELDS,
  { key: 'mmsId', from: ['MmsId', 'MMSId'], kind: 'text', example: 'MMS-000451' },
  {
    key: 'initiatingPartyName',
    from: ['InitiatingPartyName'],
    kind: 'text',
    example: 'ACME BILLING',
  },
  { key: 'nppInstructionId', from: ['NPPInstructionId'], kind: 'text', example: 'PI-000451' },
] as const satisfies readonly FieldSpec[];

/**
 * One rejection record, camelCase, as in the interface document and the provider's published
 * schemas `event.InboundDirectCreditRejectionsWebhook` and `event.NppCreditRejectionsWebhook`
 * (the same fields). Unknown fields stay in the raw body.
 */
const REJECTION_FIELDS = [
  // 2650 in the spec.
  { key: 'rejectionId', from: ['id'], kind: 'identifier', required: true, example: '2650' },
  { key: 'amount', from: ['amount'], kind: 'money', required: true, example: '264.97' },
  { key: 'batchId', from: ['batchId'], kind: 'identifier', example: '22568344' },
  { key: 'dateTime', from: ['dateTime'], kind: 'date-time', example: '2023-11-08T12:25:27' },
  // "DE" or "NPP".
  { key: 'transactionType', from: ['transactionType'], kind: 'text', example: 'DE' },
  { key: 'transactionCode', from: ['transactionCode'], kind: 'text', example: '50' },
  { key: 'status', from: ['status'], kind: 'text', example: 'Processed' },
  {
    key: 'rejectionReason',
    from: ['reason'],
    kind: 'text',
    example: 'Unmatched Reconciliation Rule Receivable',
  },
  { key: 'bsb', from: ['bsb'], kind: 'text', example: '802-985' }, // the payee's
  { key: 'accountNumber', from: ['accountNumber'], kind: 'text', example: '419001918' },
  { key: 'accountName', from: ['accountName'], kind: 'text', example: 'ACME RECEIVABLES' },
  { key: 'payId', from: ['payId'], kind: 'text', example: 'pay@acme.example.com.au' },
  { key: 'payIdName', from: ['payIdName'], kind: 'text', example: 'ACME PTY LTD' },
  // The payer's reference.
  { key: 'reference', from: ['lodgementRef'], kind: 'text', example: 'INV 9001' },
  { key: 'endToEndId', from: ['endToEndId'], kind: 'text', example: 'E2E-20231108-0001' },
  { key: 'remitterName', from: ['remitterName'], kind: 'text', example: 'JOHN PAYER' }, // the payer
  { key: 'sourceBsb', from: ['sourceBsb'], kind: 'text', example: '062-000' },
  { key: 'sourceAccountNumber', from: ['sourceAccountNumber'], kind: 'text', example: '87654321' },
  { key: 'sourceAccountName', from: ['sourceAccountName'], kind: 'text', example: 'JOHN PAYER' },
  { key: 'indicator', from: ['indicator'], kind: 'text', example: 'W' },
  { key: 'withholdingTaxAmount', from: ['withholdingTaxAmount'], kind: 'money', example: '12.5' },
  {
    key: 'nameOfUserSupplyingFile',
    from: ['nameOfUserSupplyingFile'],
    kind: 'text',
    example: 'WIDGETS BANK',
  },
  {
    key: 'numberOfUserSupplyingFile',
    from: ['numberOfUserSupplyingFile'],
    kind: 'text',
    example: '123079',
  },
  {
    key: 'descriptionOfEntriesOnFile',
    from: ['descriptionOfEntriesOnFile'],
    kind: 'text',
    example: 'PAYMENTS',
  },
  { key: 'ledgerAccountNumber', from: ['ledgerAccountNumber'], kind: 'text', example: '5520001' },
  {
    key: 'ledgerUniqueReference',
    from: ['ledgerUniqueReference'],
    kind: 'text',
    example: 'LUR-000778',
  },
] as const satisfies readonly FieldSpec[];

/** Where an InboundDirectCredit batch holds its records. */
const DIRECT_CREDIT_DETAILS = 'DirectCreditDetails';

/**
 * One InboundDirectCredit record (an element of the batch's `DirectCreditDetails`), field by
 * field as the public reference names them (PascalCase). Unknown fields stay in the raw body.
 */
const DIRECT_CREDIT_FIELDS = [
  {
    key: 'transactionId',
    from: ['TransactionId'],
    kind: 'identifier',
    required: true,
    example: 'D00100537784',
  },
  { key: 'amount', from: ['Amount'], kind: 'money', required: true, example: '100.25' },
  // Text with leading zeros ("0000000212749"); a JSON number becomes its digits.
  { key: 'batchId', from: ['BatchId'], kind: 'identifier', example: '0000000212749' },
  { key: 'dateTime', from: ['DateTime'], kind: 'date-time', example: '2020-01-13T14:21:50' },
  { key: 'bsb', from: ['Bsb'], kind: 'text', example: '802-985' }, // the receiving account
  // A JSON number in the published example, a string in the schema: both kept as text.
  { key: 'accountNumber', from: ['AccountNumber'], kind: 'text', example: '419001918' },
  { key: 'accountName', from: ['AccountName'], kind: 'text', example: 'ACME RECEIVABLES' },
  { key: 'transactionCode', from: ['TransactionCode'], kind: 'text', example: '50' },
  // The payer's reference.
  { key: 'lodgementRef', from: ['LodgementRef'], kind: 'text', example: 'INV 9001' },
  { key: 'remitterName', from: ['RemitterName'], kind: 'text', example: 'WIDGETS CO' }, // the payer
  {
    key: 'nameOfUserSupplyingFile',
    from: ['NameOfUserSupplyingFile'],
    kind: 'text',
    example: 'WIDGETS BANK',
  },
  {
    key: 'numberOfUserSupplyingFile',
    from: ['NumberOfUserSupplyingFile'],
    kind: 'text',
    example: '123079',
  },
  {
    key: 'descriptionOfEntriesOnFile',
    from: ['DescriptionOfEntriesOnFile'],
    kind: 'text',
    example: 'PAYMENTS',
  },
  // Blank, W, X or Y (withholding tax), as sent.
  { key: 'indicator', from: ['Indicator'], kind: 'text', example: 'W' },
  { key: 'withholdingTaxAmount', from: ['WithholdingTaxAmount'], kind: 'money', example: '12.5' },
  // The payer's account.
  { key: 'sourceBsb', from: ['SourceBsb'], kind: 'text', example: '123-123' },
  {
    key: 'sourceAccountNumber',
    from: ['SourceAccountNumber'],
    kind: 'text',
    example: '0099887766',
  },
  { key: 'receiptNumber', from: ['ReceiptNumber'], kind: 'identifier', example: '0005678200' },
] as const satisfies readonly FieldSpec[];

/** The row a list of specs produces (`TypedRow` below). */
type RowOf<F extends FieldSpec> = {
  [
    S in F as S extends { kind: 'date-time' } ? `${S['key']}Local` | `${S['key']}Text` : S['key']
  ]: S extends { required: true } ? string : string | null;
};

/** The Postgres type of a typed-row column, as information_schema names it. */
type ColumnSqlType = 'text' | 'numeric' | 'timestamp without time zone';

/** One column a record fills. */
interface ColumnSpec {
  /** The row's key (`payIdName`, `dateTimeLocal`). */
  readonly key: string;
  /** The table's column (`pay_id_name`, `date_time_local`). */
  readonly column: string;
  readonly sqlType: ColumnSqlType;
  readonly nullable: boolean;
  /** The field it comes from (a date-time fills two columns). */
  readonly field: FieldSpec;
  /** The object inside the record the field sits in (`RefundDetails`); absent: the record. */
  readonly within?: string;
}

/**
 * How a body holds its records: one record (the body itself), an array of records, or a batch
 * object around them (`{TotalCount, TotalAmount, DirectCreditDetails: [...]}`).
 */
type BodyShape = 'record' | 'records' | 'batch';

/** The columns storage adds from the delivery (event_name where the table holds several events). */
type DeliveryColumn = 'webhook_id' | 'received_at' | 'event_name';

/** What a table's contract states; `contract()` adds its columns. */
interface ContractSpec {
  readonly table: string;
  /** The parser's `TypedRows` kind for rows of this table (types.ts). */
  readonly kind: string;
  /** Canonical event names, in the models' spelling. */
  readonly events: readonly string[];
  readonly body: BodyShape;
  /** What one record is called in a refusal (`rejection record`), for `records` and `batch`. */
  readonly record?: string;
  /** `batch`: the key of the batch object that holds the records. */
  readonly details?: string;
  /** The record's own fields. */
  readonly fields: readonly FieldSpec[];
  /** Objects inside the record whose fields fill the same row (none when left out). */
  readonly nested?: readonly { readonly at: string; readonly fields: readonly FieldSpec[] }[];
  /** The columns storage adds from the delivery (webhook_id and received_at when left out). */
  readonly deliveryColumns?: readonly DeliveryColumn[];
}

const DELIVERY_COLUMNS = ['webhook_id', 'received_at'] as const;

/** A contract as `contract()` returns it: its spec with the defaults, and its columns. */
type Contract<S extends ContractSpec> = Omit<S, 'nested' | 'deliveryColumns'> & {
  readonly nested: S extends { nested: infer N } ? N : readonly [];
  readonly deliveryColumns: S extends { deliveryColumns: infer D } ? D : typeof DELIVERY_COLUMNS;
  /** Every column the record fills, in the order the reader fills them. */
  readonly columns: readonly ColumnSpec[];
};

/** One typed table: the events whose records fill it, their fields and the columns they fill. */
export interface TypedRowContract extends Required<Omit<ContractSpec, 'record' | 'details'>> {
  readonly table: TypedTableName;
  readonly record?: string;
  readonly details?: string;
  /** Every column the record fills, in the order the reader fills them. */
  readonly columns: readonly ColumnSpec[];
}

/** `pay_id_name` for `payIdName`. */
export function columnName(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

const SQL_TYPES: Record<Exclude<FieldKind, 'date-time'>, ColumnSqlType> = {
  identifier: 'text',
  text: 'text',
  money: 'numeric',
};

function columnsOf(fields: readonly FieldSpec[], within?: string): ColumnSpec[] {
  return fields.flatMap((field): ColumnSpec[] => {
    const nullable = field.required !== true;
    const at = within === undefined ? {} : { within };
    if (field.kind === 'date-time') {
      return [
        ['Local', 'timestamp without time zone'],
        ['Text', 'text'],
      ].map(([suffix, sqlType]) => ({
        key: `${field.key}${suffix}`,
        column: columnName(`${field.key}${suffix}`),
        sqlType: sqlType as ColumnSqlType,
        nullable,
        field,
        ...at,
      }));
    }
    const column = columnName(field.key);
    return [{ key: field.key, column, sqlType: SQL_TYPES[field.kind], nullable, field, ...at }];
  });
}

function contract<const S extends ContractSpec>(spec: S): Contract<S> {
  if (spec.body !== 'record' && spec.record === undefined) {
    throw new Error(`${spec.table}: a body of ${spec.body} names its record`);
  }
  if (spec.body === 'batch' && spec.details === undefined) {
    throw new Error(`${spec.table}: a batch names where its records sit`);
  }
  const nested = spec.nested ?? [];
  const columns = [
    ...columnsOf(spec.fields),
    ...nested.flatMap((part) => columnsOf(part.fields, part.at)),
  ];
  return Object.freeze({
    deliveryColumns: DELIVERY_COLUMNS,
    ...spec,
    nested,
    columns,
  }) as unknown as Contract<S>;
}

const REFUND = [{ at: REFUND_DETAILS, fields: REFUND_FIELDS }] as const;

/**
 * Every typed table's contract: its table (created by a migration), the `TypedRows` kind its
 * parser hands over, its events, the shape of their bodies and the fields of their records.
 */
export const TYPED_ROW_CONTRACTS = Object.freeze([
  contract({
    table: 'npp_payments',
    kind: 'npp-payment',
    events: ['NPPReceivePayment'],
    body: 'record',
    fields: PAYMENT_FIELDS,
    nested: REFUND,
  }),
  contract({
    table: 'payto_payments',
    kind: 'payto-payment',
    events: ['PayToReceivePayment'],
    body: 'record',
    fields: PAYTO_FIELDS,
    nested: REFUND,
  }),
  contract({
    table: 'credit_rejections',
    kind: 'credit-rejections',
    events: ['InboundDirectCreditRejections', 'NPPCreditRejections'],
    body: 'records',
    record: 'rejection record',
    fields: REJECTION_FIELDS,
    deliveryColumns: ['event_name', 'webhook_id', 'received_at'],
  }),
  contract({
    table: 'direct_credits',
    kind: 'direct-credits',
    events: ['InboundDirectCredit'],
    body: 'batch',
    record: 'direct-credit record',
    details: DIRECT_CREDIT_DETAILS,
    fields: DIRECT_CREDIT_FIELDS,
  }),
]);

/** The contracts, each with its literal names and fields. */
type Contracts = (typeof TYPED_ROW_CONTRACTS)[number];

/** The typed tables ('npp_payments', …). */
export type TypedTableName = Contracts['table'];

/** The contract of one typed table, as a type. */
export type ContractOf<T extends TypedTableName> = Extract<Contracts, { table: T }>;

/** One row of a typed table, as its parser hands it over (keyed by column name in camelCase). */
export type TypedRow<T extends TypedTableName> = RowOf<
  ContractOf<T>['fields'][number] | ContractOf<T>['nested'][number]['fields'][number]
>;

/** The contract of a typed table (every typed table has one). */
export function contractForTable<T extends TypedTableName>(table: T): ContractOf<T> {
  const found = TYPED_ROW_CONTRACTS.find((c) => c.table === table);
  if (found === undefined) throw new Error(`${table} has no data contract`);
  return found as ContractOf<T>;
}

/** The contract of the table an event's records fill (matched without regard to case). */
export function contractOf(eventName: string): TypedRowContract | undefined {
  const wanted = eventName.toLowerCase();
  return TYPED_ROW_CONTRACTS.find((c) =>
    (c.events as readonly string[]).some((e) => e.toLowerCase() === wanted),
  );
}

/**
 * Row key to the JSON key of its column (`payIdName` to `"pay_id_name":`), for every column of
 * every contract: made once, when the module loads.
 */
export const COLUMN_NAMES: ReadonlyMap<string, string> = new Map(
  TYPED_ROW_CONTRACTS.flatMap((c): readonly ColumnSpec[] => c.columns).map((c) => [
    c.key,
    c.column,
  ]),
);

/**
 * One record with every field set to its example, named as the platform names it (the first
 * spelling), nested objects included: what a sandbox or a test sends. Overrides replace
 * fields by those names.
 */
export function sampleRecord(
  eventName: string,
  overrides: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const found = contractOf(eventName);
  if (found === undefined) throw new Error(`${eventName} is not a modelled event`);
  const fill = (fields: readonly FieldSpec[]) =>
    Object.fromEntries(fields.map((field) => [field.from[0] ?? field.key, field.example]));
  const record: Record<string, unknown> = fill(found.fields);
  for (const part of found.nested) record[part.at] = fill(part.fields);
  return { ...record, ...overrides };
}

/**
 * A whole body for the event, in the shape its contract takes: one object for a payment, an
 * array of records for rejections, a batch `{TotalCount, TotalAmount, DirectCreditDetails}` for
 * direct credits. `records` default to one `sampleRecord`.
 */
export function samplePayload(
  eventName: string,
  records: readonly Record<string, unknown>[] = [sampleRecord(eventName)],
): unknown {
  const found = contractOf(eventName);
  if (found === undefined) throw new Error(`${eventName} is not a modelled event`);
  switch (found.body) {
    case 'record':
      return records[0];
    case 'records':
      return records;
    case 'batch':
      return {
        TotalCount: records.length,
        TotalAmount: sumOfAmounts(records.map((record) => record.Amount)),
        // A batch's contract names where its records sit (contract() checks).
        [found.details as string]: records,
      };
  }
}

/** Decimal strings (or numbers) added exactly. */
function sumOfAmounts(amounts: readonly unknown[]): string {
  return canonicalAmount(amounts.reduce<bigint>((total, a) => total + toUnits(String(a)), 0n));
}
