/**
 * RFC 4180: a field holding a comma, a double quote or a line break is enclosed in double
 * quotes, and each double quote inside is doubled. Rows are joined with CRLF.
 */
export function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(values: readonly unknown[]): string {
  return values.map(csvField).join(',');
}

export function csvDocument(rows: readonly string[]): string {
  return rows.map((row) => `${row}\r\n`).join('');
}
