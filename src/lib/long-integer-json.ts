import { isInteger, isSafeNumber, parse } from 'lossless-json';

/**
 * JSON.parse, except that an integer too long to be exact in a double becomes a string (by
 * lossless-json, which reads each number from its text). A `webhookId` is an int64: parsed as a
 * number, 1234567890123456789 would silently turn into a neighbour, and recovery would ask to
 * resend a notification that does not exist. Every other number is a number, as JSON.parse
 * makes it (decimals included), and a repeated key keeps its last value, as with JSON.parse.
 */
export function parseJsonKeepingLongIntegers(text: string): unknown {
  return parse(text, null, {
    parseNumber: (digits) => (isInteger(digits) && !isSafeNumber(digits) ? digits : Number(digits)),
    onDuplicateKey: ({ newValue }) => newValue,
  });
}
