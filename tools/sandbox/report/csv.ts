import { stringify } from 'csv-stringify/sync';

/**
 * RFC 4180: a field holding a comma, a double quote or a line break (CR or LF alone too) is
 * enclosed in double quotes, each double quote inside doubled; records end with CRLF. Every
 * value is written as its text (null and undefined as nothing), never cast by the library.
 */
const OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

const texts = (values: readonly unknown[]) =>
  values.map((value) => (value === null || value === undefined ? '' : String(value)));

/** One record without its line end, as the report's JSON form lists rows. */
export function csvRow(values: readonly unknown[]): string {
  return stringify([texts(values)], { ...OPTIONS, eof: false });
}

/** Records, each ended with CRLF. */
export function csvDocument(records: readonly (readonly unknown[])[]): string {
  return stringify(records.map(texts), OPTIONS);
}
