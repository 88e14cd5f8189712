import { check, type Check } from '../core/report.ts';
import type { Receiver } from '../core/processes.ts';

/** Where each receiver's output stood when a scenario began. */
export type OutputMarks = number[];

export function markOutputs(receivers: Receiver[]): OutputMarks {
  return receivers.map((receiver) => receiver.output().length);
}

/**
 * Every process exit since the marks, with the first error line the process wrote before it:
 * "receiver-1 exited (code 1, signal null): Error: read ECONNRESET".
 */
export function exitsSince(receivers: Receiver[], marks: OutputMarks): string[] {
  return receivers.flatMap((receiver, i) => {
    const text = receiver.output().slice(marks[i] ?? 0);
    const exits: string[] = [];
    let previous = 0;
    for (const match of text.matchAll(/^--- (\S+ exited \([^)]*\)) ---$/gm)) {
      const before = text.slice(previous, match.index);
      const reasons = [/^.*Unhandled.*$/m, /^\s*\w*Error: .*$/m]
        .map((pattern) => pattern.exec(before)?.[0].trim())
        .filter((line): line is string => line !== undefined);
      exits.push(
        `${match[1]}${reasons.length > 0 ? `: ${reasons.join(' / ').slice(0, 200)}` : ''}`,
      );
      previous = match.index + match[0].length;
    }
    return exits;
  });
}

/** No exit at all, or (`caused`: how the one exit a scenario caused begins) only that one. */
export function exitCheck(exits: string[], caused?: string): Check {
  if (caused === undefined) {
    return check('no receiver exited', exits.length === 0, exits.join('; ') || undefined);
  }
  return check(
    'no other exit than the one caused',
    exits.length === 1 && exits[0]?.startsWith(caused) === true,
    exits.join('; ') || 'none',
  );
}
