/**
 * Identifiers the receiver deduplicates on (Webhookid, TransactionId, rejection id,
 * ReceiptNumber) must never repeat, not even across sandbox runs without a state file: a
 * repeated Webhookid is taken as a redelivery and silently dropped. So each id is at least the
 * real time in microseconds-ish (ms × 1000, 16 digits, a safe JSON integer until the year 2255)
 * and above the last one handed out.
 */
export interface IdSource {
  next(): number;
  last(): number;
}

export function createIdSource(realNow: () => number = Date.now, last = 0): IdSource {
  let previous = last;
  return {
    next() {
      previous = Math.max(previous + 1, realNow() * 1000);
      return previous;
    },
    last: () => previous,
  };
}
