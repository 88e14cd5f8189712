/** The demo's checklist: each step says what the receiver (or sandbox) answered and whether that was right. */
export interface Tally {
  check(label: string, actual: unknown, expected: unknown): boolean;
  note(line: string): void;
  failures(): number;
  answers(): Map<string, number>;
  count(answer: number | string): void;
}

export function createTally(print: (line: string) => void): Tally {
  let failed = 0;
  const counts = new Map<string, number>();
  return {
    check(label, actual, expected) {
      const ok = actual === expected;
      if (!ok) failed += 1;
      print(
        `  ${ok ? 'ok ' : 'BAD'} ${label}: ${String(actual)}${ok ? '' : ` (expected ${String(expected)})`}`,
      );
      return ok;
    },
    note: (line) => print(line),
    failures: () => failed,
    answers: () => counts,
    count(answer) {
      const key = String(answer);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
  };
}
