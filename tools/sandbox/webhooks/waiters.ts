/**
 * Promises waiting for notifications to finish: `settled` (named Webhookids are Sent or Error)
 * and `idle` (an empty list: nothing queued, in flight or waiting for a retry). Each has a
 * deadline so a caller never waits forever.
 */
interface Waiter {
  ids: readonly string[];
  resolve: () => void;
  timer: NodeJS.Timeout;
}

export function createWaiters() {
  let waiters: Waiter[] = [];
  const done = (w: Waiter, isFinal: (id: string) => boolean, busy: boolean) =>
    w.ids.length === 0 ? !busy : w.ids.every(isFinal);
  const finish = (w: Waiter) => {
    clearTimeout(w.timer);
    w.resolve();
  };
  return {
    add(
      ids: readonly string[],
      timeoutMs: number,
      isFinal: (id: string) => boolean,
      busy: boolean,
    ): Promise<void> {
      return new Promise<void>((resolve) => {
        const waiter: Waiter = {
          ids,
          resolve,
          timer: setTimeout(() => {
            waiters = waiters.filter((w) => w !== waiter);
            resolve();
          }, timeoutMs),
        };
        if (done(waiter, isFinal, busy)) return finish(waiter);
        waiters.push(waiter);
      });
    },
    /** Called after every attempt; `all` releases every waiter (on close). */
    check(isFinal: (id: string) => boolean, busy: boolean, all = false): void {
      const ready = waiters.filter((w) => all || done(w, isFinal, busy));
      waiters = waiters.filter((w) => !ready.includes(w));
      ready.forEach(finish);
    },
  };
}
