/** At most `limit` tasks at once, started in the order they were asked for. */
export function concurrencyLimit(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}

/**
 * At most `perSecond` starts a second, evenly spaced (0: no limit). Each call reserves the next
 * free moment at once, so callers are paced in the order they called; `reserved` is told that
 * moment (on the `now` clock) when the caller has to wait for it.
 */
export function pacer(
  perSecond: number,
  now: () => number = performance.now.bind(performance),
): (reserved?: (at: number) => void) => Promise<void> {
  const interval = perSecond > 0 ? 1000 / perSecond : 0;
  let next = 0;
  return (reserved) => {
    if (interval === 0) return Promise.resolve();
    const at = Math.max(now(), next);
    next = at + interval;
    if (at > now()) reserved?.(at);
    return sleep(at - now());
  };
}

export function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
