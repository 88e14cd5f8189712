import type { SimulationSummary } from './summary.ts';

/**
 * What a run is doing while nothing visible happens: deliveries waiting for their one retry
 * (the platform's 30 s), deliveries held back by `--rate`, requests waiting for an answer. A
 * line at most every `intervalMs`, and only while the run lasts, so a long wait is never silent
 * and a quick run prints nothing.
 */
export interface ProgressOptions {
  /** Least time between lines; 0: no progress lines. */
  intervalMs: number;
  write: (line: string) => void;
  now?: () => number;
}

export interface Progress {
  /** A delivery waits for its pacing slot until `at`. */
  paced(at: number): void;
  /** A paced delivery has started. */
  started(): void;
  requestStarted(): void;
  requestEnded(): void;
  /** A failed delivery will be retried at `at`. */
  retryScheduled(at: number): void;
  retryStarted(at: number): void;
  /** A delivery has its last answer. */
  finished(): void;
  stop(): void;
}

export function createProgress(
  options: ProgressOptions,
  summary: SimulationSummary,
  run: { retryDelayMs: number; timeoutMs: number },
): Progress {
  const now = options.now ?? (() => performance.now());
  const retries: number[] = [];
  let pacedWaiting = 0;
  let lastPacedAt = 0;
  let inFlight = 0;
  let done = 0;
  const timer =
    options.intervalMs > 0
      ? setInterval(() => options.write(line()), options.intervalMs)
      : undefined;
  timer?.unref();

  const seconds = (ms: number) => `${Math.max(0, Math.ceil(ms / 1000))} s`;

  function line(): string {
    const t = now();
    const waits: string[] = [];
    if (retries.length > 0) {
      const first = seconds(Math.min(...retries) - t);
      const last = seconds(Math.max(...retries) - t);
      waits.push(
        `${retries.length} ${retries.length === 1 ? 'delivery' : 'deliveries'} for the one retry ` +
          `(the platform's, ${seconds(run.retryDelayMs)} after a failure), ` +
          (first === last ? `due in ${first}` : `next in ${first}, last in ${last}`),
      );
    }
    if (pacedWaiting > 0)
      waits.push(`${pacedWaiting} held back by --rate, last starts in ${seconds(lastPacedAt - t)}`);
    if (inFlight > 0) waits.push(`${inFlight} for an answer (timeout ${seconds(run.timeoutMs)})`);
    const a = summary.answers;
    const counts =
      `${done} of ${summary.deliveries} deliveries done; sent ${summary.sent}: ` +
      `200 ${a[200]}, 400 ${a[400]}, 401 ${a[401]}, 5xx ${a['5xx']}, other ${a.other}, network errors ${summary.networkErrors}`;
    return `simulate: ${waits.length > 0 ? `waiting: ${waits.join('; ')}` : 'working'}; ${counts}`;
  }

  const remove = (at: number) => {
    const index = retries.indexOf(at);
    if (index >= 0) retries.splice(index, 1);
  };

  return {
    paced(at) {
      pacedWaiting += 1;
      lastPacedAt = Math.max(lastPacedAt, at);
    },
    started: () => void (pacedWaiting -= 1),
    requestStarted: () => void (inFlight += 1),
    requestEnded: () => void (inFlight -= 1),
    retryScheduled: (at) => void retries.push(at),
    retryStarted: remove,
    finished: () => void (done += 1),
    stop: () => clearInterval(timer),
  };
}
