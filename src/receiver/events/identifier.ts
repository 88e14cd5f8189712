import { describeValue } from '../../lib/describe-value.ts';
import { checkStorable } from './optional-string.ts';
import { accept, refuse, type Parsed } from './parsed.ts';

/**
 * Identifiers (TransactionId, rejection id, batchId, ReceiptNumber, RefundId) arrive as text
 * ("N00100000000") or as JSON numbers (2650); both are stored as text, exactly as sent.
 * A number must be a whole number JSON.parse kept exactly: a larger one has already lost
 * digits, and storing the neighbour would defeat deduplication on it.
 */
export function parseIdentifier(value: unknown): Parsed<string> {
  if (typeof value === 'string') {
    if (value.trim() === '') return refuse(`must not be blank (got ${describeValue(value)})`);
    return checkStorable(value);
  }
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    return accept(String(value));
  }
  if (typeof value === 'number' && Number.isInteger(value)) {
    return refuse(
      `is too large to be exact as a JSON number (got ${describeValue(value)}); send it as text`,
    );
  }
  return refuse(`must be text or a whole number (got ${describeValue(value)})`);
}
