/**
 * RFC 4180 CSV: fields separated by commas, records by CRLF or LF; a quoted field may hold
 * commas, doubled quotes and line breaks. Bounded by the caller's body cap; no other state.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endField = () => {
    record.push(field);
    field = '';
  };
  const endRecord = () => {
    endField();
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
  };
  while (i < text.length) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else field += char;
      i += 1;
      continue;
    }
    if (char === '"' && field === '') quoted = true;
    else if (char === ',') endField();
    else if (char === '\n') endRecord();
    else if (char !== '\r' || text[i + 1] !== '\n') field += char;
    i += 1;
  }
  if (field !== '' || record.length > 0) endRecord();
  return records;
}
