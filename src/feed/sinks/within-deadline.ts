/**
 * `work`'s value, or `late()`'s once `timeoutMs` has passed first: a sink answers every attempt
 * within its timeout even when a broker client would wait longer (a connection being opened, an
 * acknowledgement that never comes). The work itself is not cancelled; what it yields late is
 * ignored, and a rejection it gives late is swallowed (the attempt already has its outcome).
 */
export function withinDeadline<T>(work: Promise<T>, timeoutMs: number, late: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => resolve(late()), timeoutMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
