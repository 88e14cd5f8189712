/**
 * Which database errors belong to a row, and which of those a retry would meet again. The answer
 * decides a delivery's fate: the platform retries a 5xx once, 30 s later, and never a 400, so a
 * 500 for a fault that repeats loses the payment, and a 400 for a passing fault loses it too.
 *
 * Deterministic (the same values fail the same way on every attempt; quarantine + 400):
 * - class 22, data exception: a value the column's type refuses (numeric overflow, a date that
 *   does not exist, NUL in text);
 * - class 54, program limit exceeded: 54000 an index entry too large (a 4,000-character
 *   TransactionId), 54001 a value too deeply nested, …;
 * - 23502 not-null and 23514 check violations: the row breaks the table's own contract.
 * Not deterministic: 23505/23P01 (uniqueness is settled by ON CONFLICT, a race may differ next
 * time), 23503 (a foreign key depends on other rows), 40001/40P01 (serialisation, deadlock),
 * and everything else: connection loss (08xxx, "Connection terminated", connect timeouts with no
 * code), shutdown (57P01-57P03), statement timeout (57014), resources (53xxx), and our own bugs
 * (42xxx), which a 500 makes loud and a fixed release can store on the platform's retry.
 */
export function isDeterministicRefusal(error: unknown): boolean {
  const code = sqlState(error);
  return (
    code !== undefined &&
    (code.startsWith('22') || code.startsWith('54') || code === '23502' || code === '23514')
  );
}

/**
 * Errors tied to one row of a batch (data, constraints, program limits) or to the batch's luck
 * (deadlock, serialisation): worth retrying each delivery on its own so one cannot fail the
 * others. Anything else (a lost connection, a timeout, a database going down) would fail each
 * retry too, one wait after another, so the whole batch fails at once instead.
 */
export function isRowFault(error: unknown): boolean {
  const code = sqlState(error);
  return (
    code !== undefined &&
    (code.startsWith('22') ||
      code.startsWith('23') ||
      code.startsWith('54') ||
      code === '40001' ||
      code === '40P01')
  );
}

/**
 * A Postgres SQLSTATE (five characters; classes are digits, F0, HV, P0, XX). Node's network
 * errors also carry a `code` (ECONNRESET, EPIPE), which this leaves out.
 */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9FHPX][0-9A-Z]{4}$/.test(code) ? code : undefined;
}
