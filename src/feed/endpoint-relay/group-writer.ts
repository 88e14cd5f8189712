/**
 * Group commit for one writer: items handed in while a write is running wait for it to end, and
 * are then written together by the next one, so a burst of N costs about two writes, not N, and
 * nothing waits for a batch to fill. Each caller gets its own item's result (or the write's
 * error).
 */
export interface GroupWriter<I, O> {
  write(item: I): Promise<O>;
}

export function createGroupWriter<I, O>(
  writeAll: (items: readonly I[]) => Promise<readonly O[]>,
): GroupWriter<I, O> {
  let waiting: { item: I; resolve: (result: O) => void; reject: (error: unknown) => void }[] = [];
  let writing = false;

  // Never rejects: a failed write is its callers' error, and the next batch is tried anyway.
  const drain = async () => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const results = await writeAll(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => entry.resolve(results[index] as O));
      } catch (error) {
        batch.forEach((entry) => entry.reject(error));
      }
    }
    writing = false;
  };

  return {
    write: (item) =>
      new Promise<O>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (!writing) drain().catch(() => {});
      }),
  };
}
