/**
 * A read made at scrape time, shared and spaced: however many gauges ask in one scrape, and
 * however many scrapers (several Prometheus servers, a person with curl), the source is read at
 * most once per `maxAgeMs`, never twice at once, and nobody waits longer than `deadlineMs`.
 *
 * A read still running at its deadline counts as failed, but it is not abandoned to a second one:
 * until it settles no other read starts (a database that makes connections wait would otherwise
 * gather one waiter per scrape).
 */
export type ReadResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface CachedReadOptions<T> {
  read: () => Promise<T>;
  maxAgeMs: number;
  deadlineMs: number;
  /** Milliseconds, monotonic enough for spacing reads. */
  now: () => number;
  /** Once per read attempt, with how it ended. */
  onResult?: (result: ReadResult<T>) => void;
}

export function createCachedRead<T>(options: CachedReadOptions<T>): () => Promise<ReadResult<T>> {
  let last: { at: number; result: ReadResult<T> } | undefined;
  let attempt: Promise<ReadResult<T>> | undefined;
  let underway: Promise<T> | undefined;

  const startRead = (): Promise<T> => {
    if (underway) return underway;
    const read = options.read();
    underway = read;
    const clear = () => {
      if (underway === read) underway = undefined;
    };
    read.then(clear, clear);
    return read;
  };

  const attemptRead = async (): Promise<ReadResult<T>> => {
    const at = options.now();
    const result = await withinDeadline(startRead(), options.deadlineMs);
    last = { at, result };
    options.onResult?.(result);
    return result;
  };

  return () => {
    if (last && options.now() - last.at < options.maxAgeMs) return Promise.resolve(last.result);
    if (!attempt) {
      const current = attemptRead().finally(() => {
        if (attempt === current) attempt = undefined;
      });
      attempt = current;
    }
    return attempt;
  };
}

async function withinDeadline<T>(read: Promise<T>, deadlineMs: number): Promise<ReadResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ReadResult<T>>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, error: new Error(`no answer within ${deadlineMs} ms`) }),
      deadlineMs,
    );
  });
  try {
    return await Promise.race([
      read.then(
        (value): ReadResult<T> => ({ ok: true, value }),
        (error: unknown): ReadResult<T> => ({ ok: false, error }),
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
