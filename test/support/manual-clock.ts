import type { Schedule } from '../../src/receiver/verification/schedule.ts';

/**
 * A clock a test moves by hand, with timers that fire only when it is moved past them. Fired
 * tasks are awaited, so a timer that starts a key fetch has finished it when `advance` returns:
 * an hour of key refreshes and retries runs in milliseconds, against a real key endpoint.
 */
export interface ManualClock {
  now(): number;
  schedule: Schedule;
  /** Moves time forward by `ms`, running every timer that falls due on the way, in order. */
  advance(ms: number): Promise<void>;
  /** Timers not yet fired. */
  pending(): number;
}

interface Timer {
  dueAt: number;
  task: () => unknown;
}

export function createManualClock(start = Date.parse('2026-11-22T00:00:00Z')): ManualClock {
  let time = start;
  const timers = new Set<Timer>();
  return {
    now: () => time,
    schedule: (task, delayMs) => {
      const timer = { dueAt: time + delayMs, task };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance: async (ms) => {
      const target = time + ms;
      for (;;) {
        const due = [...timers]
          .filter((timer) => timer.dueAt <= target)
          .sort((a, b) => a.dueAt - b.dueAt)[0];
        if (due === undefined) break;
        timers.delete(due);
        time = Math.max(time, due.dueAt);
        await due.task();
      }
      time = target;
    },
    pending: () => timers.size,
  };
}
