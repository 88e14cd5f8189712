import { describeValue } from '../../lib/describe-value.ts';
import { readBatchTotals } from './batch-body.ts';
import type { TypedRowContract } from './data-contract.ts';
import { createFindings } from './findings.ts';
import {
  isPlainObject,
  readRecord,
  readRecords,
  rowTemplate,
  type RecordReader,
  type Report,
  type Row,
} from './record-reader.ts';
import type { BatchRow, EventModel, ParseOutcome, TypedRows } from './types.ts';

/**
 * An event's parser, built from its table's contract (data-contract.ts), so an event needs no
 * parser of its own: the body's shape says where the records are (the body itself, an array of
 * them, or a batch around them, batch-body.ts), and each record is read field by field as the
 * contract lists them (record-reader.ts), its nested objects (RefundDetails) into the same row.
 * Unknown fields stay in the raw body.
 */

export interface ModelOptions {
  /**
   * An array-of-records event that also takes one record, as a batch of one (its problem paths
   * then have no "[0]"): the provider's own published example of NPPCreditRejections is a
   * single object.
   */
  readonly acceptsSingleRecord?: boolean;
}

export function contractModel(
  name: string,
  contract: TypedRowContract,
  options: ModelOptions = {},
): EventModel {
  const read = recordReader(contract);
  const parse =
    contract.body === 'record'
      ? recordBody(name, contract, read)
      : contract.body === 'records'
        ? recordsBody(contract, read, options.acceptsSingleRecord === true)
        : batchBody(name, contract, read);
  return Object.freeze({ name, parse });
}

/**
 * Reads one record and its nested objects into one row. Each row starts as a copy of the
 * contract's template, every column included (see rowTemplate).
 */
function recordReader(contract: TypedRowContract): RecordReader {
  const template = rowTemplate(contract.fields, ...contract.nested.map((part) => part.fields));
  return (record, at, report) => {
    const row = readRecord(record, contract.fields, at, report, { ...template });
    for (const part of contract.nested) {
      const path = at === '' ? part.at : `${at}.${part.at}`;
      const value = record[part.at];
      if (isPlainObject(value)) readRecord(value, part.fields, path, report, row);
      else if (value !== undefined && value !== null) {
        // Its parts keep the template's nulls.
        report.warnings.add(() => ({
          path,
          message: `${path} must be an object or null; its parts are stored as null`,
        }));
      }
    }
    return row;
  };
}

/** One record: the body itself (NPPReceivePayment). */
function recordBody(
  name: string,
  contract: TypedRowContract,
  read: RecordReader,
): EventModel['parse'] {
  const shape = `The body must be a JSON object (one ${name} notification)`;
  return (input) => {
    if (!isPlainObject(input)) return refused('', shape);
    const report = newReport();
    const row = read(input, '', report);
    return finish(report, { kind: contract.kind, rows: [row] });
  };
}

/** An array of records (the rejections), or one record where the event takes it. */
function recordsBody(
  contract: TypedRowContract,
  read: RecordReader,
  acceptsSingleRecord: boolean,
): EventModel['parse'] {
  const noun = contract.record ?? 'record';
  const shape = acceptsSingleRecord
    ? `The body must be a JSON array of ${noun}s, or a single record`
    : `The body must be a JSON array of ${noun}s`;
  return (input) => {
    const report = newReport();
    let rows: Row[];
    if (acceptsSingleRecord && isPlainObject(input)) {
      rows = [read(input, '', report)];
    } else if (Array.isArray(input)) {
      // An empty array is zero rows: well formed, and the delivery is still stored.
      rows = readRecords(input, '', noun, read, report);
    } else {
      return refused('', shape);
    }
    return finish(report, { kind: contract.kind, rows });
  };
}

/** A batch object around the records, with its totals (InboundDirectCredit). */
function batchBody(
  name: string,
  contract: TypedRowContract,
  read: RecordReader,
): EventModel['parse'] {
  // A batch's contract names where its records sit, and what one is called (contract() checks).
  const details = contract.details ?? '';
  const noun = contract.record ?? 'record';
  const shape = `The body must be a JSON object (one ${name} batch: TotalCount, TotalAmount, ${details})`;
  return (input) => {
    if (!isPlainObject(input)) return refused('', shape);
    const records = input[details];
    if (!Array.isArray(records)) {
      const got = records === undefined ? 'it is missing' : `got ${describeValue(records)}`;
      return refused(details, `${details} must be a JSON array of records (${got})`);
    }
    const report = newReport();
    // An empty array is zero records: well formed, and the delivery (and its batch) is stored.
    const rows = readRecords(records, details, noun, read, report);
    if (report.problems.count > 0) return { ok: false, problems: report.problems.list() };
    const batch = readBatchTotals(input, rows, details, report);
    return finish(report, { kind: contract.kind, rows, batch });
  };
}

function newReport(): Report {
  return { problems: createFindings('problems'), warnings: createFindings('warnings') };
}

function refused(path: string, message: string): ParseOutcome {
  return { ok: false, problems: [{ path, message }] };
}

/**
 * The outcome once every record is read. The rows are computed from the same contract
 * (`TypedRows`, types.ts), so the cast is exact.
 */
function finish(
  report: Report,
  typed: { kind: string; rows: Row[]; batch?: BatchRow },
): ParseOutcome {
  if (report.problems.count > 0) return { ok: false, problems: report.problems.list() };
  return { ok: true, typed: typed as unknown as TypedRows, warnings: report.warnings.list() };
}
