/**
 * JSON.parse, except that integer literals too long to be exact in a double (16 digits or more)
 * become strings. A `webhookId` is an int64: parsed as a number, 1234567890123456789 would
 * silently turn into a neighbour, and recovery would ask to resend a notification that does not
 * exist. Strings are skipped over, so text inside them is never touched.
 */
const LONG_INTEGER = /-?\d{16,}(?![.\deE])/y;

export function parseJsonKeepingLongIntegers(text: string): unknown {
  let out = '';
  let copiedTo = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"') {
      i = endOfString(text, i);
      continue;
    }
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) {
      LONG_INTEGER.lastIndex = i;
      const match = LONG_INTEGER.exec(text);
      const previous = text[i - 1];
      const startsNumber = previous === undefined || !/[\d.eE+-]/.test(previous);
      if (match && startsNumber) {
        out += `${text.slice(copiedTo, i)}"${match[0]}"`;
        i += match[0].length;
        copiedTo = i;
        continue;
      }
    }
    i += 1;
  }
  return JSON.parse(out + text.slice(copiedTo));
}

/** Index just after the string literal that opens at `start`. */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const char = text[i];
    if (char === '\\') i += 2;
    else if (char === '"') return i + 1;
    else i += 1;
  }
  return i;
}
