import { describeAttempts, type AttemptView } from './attempts.ts';

/** The demo's checklist: each step says what the receiver (or sandbox) answered and whether that was right. */
export interface Tally {
  check(label: string, actual: unknown, expected: unknown): boolean;
  /**
   * Every attempt of one notification on one line (`503 … → 200 stored on the retry`), each
   * counted; right when the last one was answered `expected`.
   */
  attempts(label: string, attempts: readonly AttemptView[], expected: number): boolean;
  note(line: string): void;
  failures(): number;
  answers(): Map<string, number>;
  /** Attempts the sandbox made that got no answer (a network error, a fault). */
  unanswered(): number;
  count(answer: number | string): void;
}

export function createTally(print: (line: string) => void): Tally {
  let failed = 0;
  let unanswered = 0;
  const counts = new Map<string, number>();
  const tally: Tally = {
    check(label, actual, expected) {
      const ok = actual === expected;
      if (!ok) failed += 1;
      print(
        `  ${ok ? 'ok ' : 'BAD'} ${label}: ${String(actual)}${ok ? '' : ` (expected ${String(expected)})`}`,
      );
      return ok;
    },
    attempts(label, attempts, expected) {
      for (const attempt of attempts) {
        if (attempt.responseCode === undefined) unanswered += 1;
        else tally.count(attempt.responseCode);
      }
      const ok = attempts.at(-1)?.responseCode === expected;
      if (!ok) failed += 1;
      print(
        `  ${ok ? 'ok ' : 'BAD'} ${label}: ${describeAttempts(attempts)}${ok ? '' : ` (expected ${expected} in the end)`}`,
      );
      return ok;
    },
    note: (line) => print(line),
    failures: () => failed,
    answers: () => counts,
    unanswered: () => unanswered,
    count(answer) {
      const key = String(answer);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
  };
  return tally;
}
