import { parseProviderDateTime } from './date-time.ts';
import { describeValue } from '../../lib/describe-value.ts';
import type { Findings } from './findings.ts';
import { parseIdentifier } from './identifier.ts';
import { parseMoney } from '../../lib/money.ts';
import { checkStorable, isAbsent, parseText } from './optional-string.ts';
import type { Parsed } from './parsed.ts';
import type { FieldKind, FieldSpec } from './data-contract.ts';

/** True when A and B are the same type (used for compile-time checks of row shapes). */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export interface Report {
  problems: Findings;
  warnings: Findings;
}

/** One row as a reader fills it: column key (camelCase) to value. */
export type Row = Record<string, string | null>;

/** Reads one record found at `at` in the body into a new row. */
export type RecordReader = (
  record: Readonly<Record<string, unknown>>,
  at: string,
  report: Report,
) => Row;

const PARSERS: Record<Exclude<FieldKind, 'date-time'>, (value: unknown) => Parsed<string>> = {
  identifier: parseIdentifier,
  text: parseText,
  money: parseMoney,
};

/**
 * Reads one JSON object field by field. A required field that is missing or unreadable is a
 * problem (the body is refused); any other field that cannot be read becomes null with a
 * warning (the delivery is stored): an odd optional field never costs a payment.
 * `at` is the record's path in the body ("" for the body, "[2]", "RefundDetails"). The columns
 * are set on `row` (a copy of its template, see rowTemplate), which is returned.
 */
export function readRecord(
  record: Readonly<Record<string, unknown>>,
  fields: readonly FieldSpec[],
  at: string,
  report: Report,
  row: Row,
): Row {
  for (const field of fields) {
    const name = pick(record, field, at, report);
    const value = record[name];
    const path = at === '' ? name : `${at}.${name}`;
    if (field.kind === 'date-time') {
      readDateTime(row, field.key, value, path, report);
      continue;
    }
    if (isAbsent(value)) {
      if (field.required) {
        report.problems.add(() => ({
          path,
          message:
            value === undefined
              ? `${path} is required`
              : `${path} is required (got ${describeValue(value)})`,
        }));
      }
      row[field.key] = null;
      continue;
    }
    const parsed = PARSERS[field.kind](value);
    if (parsed.ok) {
      row[field.key] = parsed.value;
    } else {
      row[field.key] = null;
      if (field.required)
        report.problems.add(() => ({ path, message: `${path} ${parsed.reason}` }));
      else warn(report, path, `${parsed.reason}; stored as null`);
    }
  }
  return row;
}

/**
 * The first spelling that holds a value (or the first spelling, when none does). Every field of
 * every delivery passes here: nothing is allocated unless a variant spelling is present.
 */
function pick(
  record: Readonly<Record<string, unknown>>,
  field: FieldSpec,
  at: string,
  report: Report,
): string {
  let chosen = field.from[0] ?? field.key;
  for (let index = 1; index < field.from.length; index += 1) {
    const name = field.from[index] as string;
    const value = record[name];
    if (isAbsent(value)) continue;
    if (isAbsent(record[chosen])) chosen = name;
    else if (value !== record[chosen]) {
      const path = at === '' ? name : `${at}.${name}`;
      warn(report, path, `differs from ${chosen}; ${chosen} is stored`);
    }
  }
  return chosen;
}

/** `<key>Local` and `<key>Text` into `row` (in that order). */
function readDateTime(row: Row, key: string, value: unknown, path: string, report: Report): void {
  const [local, text] = dateTimeColumns(key);
  row[local] = null;
  row[text] = null;
  if (isAbsent(value)) return;
  if (typeof value === 'string' && checkStorable(value).ok) row[text] = value;
  const parsed = parseProviderDateTime(value);
  if (!parsed.ok) {
    const kept = row[text] === null ? 'stored as null' : 'the text is kept';
    warn(report, path, `${parsed.reason}; ${kept}`);
    return;
  }
  row[local] = parsed.value.local;
  if (parsed.value.note !== undefined) warn(report, path, parsed.value.note);
}

/**
 * Every column of these specs, null, in the order `readRecord` fills them. A row starts as a copy
 * of its template (`{ ...template }`) rather than growing key by key: V8 turns an object grown
 * by some thirty computed keys into a slow dictionary, which every later read of the row, and
 * the JSON it becomes, pays for; a copy of a template keeps the template's fast layout.
 */
export function rowTemplate(...lists: readonly (readonly FieldSpec[])[]): Record<string, null> {
  const columns = lists
    .flat()
    .flatMap((field) => (field.kind === 'date-time' ? dateTimeColumns(field.key) : [field.key]));
  return Object.fromEntries(columns.map((column) => [column, null]));
}

/**
 * An array of records at `within` (`""` for the body, `DirectCreditDetails`), each read by
 * `read`; an element that is not an object is a problem (`[2] must be a rejection record`).
 * Once the body is refused its rows are never used: only what else is wrong is counted.
 */
export function readRecords(
  records: readonly unknown[],
  within: string,
  noun: string,
  read: RecordReader,
  report: Report,
): Row[] {
  const rows: Row[] = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index];
    const at = `${within}[${index}]`;
    if (!isPlainObject(record)) {
      report.problems.add(() => ({ path: at, message: `${at} must be a ${noun} (a JSON object)` }));
      continue;
    }
    const row = read(record, at, report);
    if (report.problems.count === 0) rows.push(row);
  }
  return rows;
}

/** The column names of a date-time key, made once per key rather than for every delivery. */
const DATE_TIME_COLUMNS = new Map<string, readonly [string, string]>();

function dateTimeColumns(key: string): readonly [string, string] {
  let columns = DATE_TIME_COLUMNS.get(key);
  if (columns === undefined) {
    columns = [`${key}Local`, `${key}Text`];
    DATE_TIME_COLUMNS.set(key, columns);
  }
  return columns;
}

function warn(report: Report, path: string, reason: string): void {
  report.warnings.add(() => ({ path, message: `${path} ${reason}` }));
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
