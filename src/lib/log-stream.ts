import sonicBoom from 'sonic-boom';
import type { DestinationStream } from 'pino';

/**
 * Where the service's log lines go: stdout, written asynchronously (lines written while a write
 * is in flight go out together), through a buffer of bounded size. A reader that stops reading
 * (a stuck log collector, a full pipe) must not hold the process hostage: once the buffer is
 * full, further lines are dropped and counted (`log_lines_dropped_total`), and nothing waits for
 * the buffer to empty for longer than the caller allows.
 */
export interface LogStream {
  destination: DestinationStream;
  /** Lines dropped because the buffer was full. */
  droppedLines(): number;
  /** Bytes accepted and not yet written. */
  bufferedBytes(): number;
  /** Resolves once every buffered line is written, or after `maxWaitMs`, whichever is first. */
  flushWithin(maxWaitMs: number): Promise<void>;
}

export function createLogStream(options: { fd: number; maxBufferBytes: number }): LogStream {
  // Not pino.destination(): that one also flushes synchronously when the process exits, which
  // blocks forever on a full pipe, so even the forced exit after SHUTDOWN_TIMEOUT_MS would hang.
  // No maxLength: the bound is kept here, line by line (sonic-boom would drop a whole write).
  const boom = new sonicBoom.SonicBoom({ fd: options.fd, sync: false });
  let dropped = 0;
  let buffered = 0;
  // The first line of a turn of the event loop goes to sonic-boom at once; the others of the
  // same turn wait and go together at its end. A line at a time, sonic-boom appends each to the
  // text waiting behind a write in flight and measures that text anew, copying it once per line,
  // and a batch of deliveries answered at once writes dozens of lines in a row.
  let turnStarted = false;
  let waiting: string[] = [];
  const endTurn = () => {
    turnStarted = false;
    if (waiting.length === 0) return;
    const lines = waiting;
    waiting = [];
    boom.write(lines.join(''));
  };
  const written = new Set<() => void>();
  boom.on('write', (bytes: number) => {
    buffered = Math.max(0, buffered - bytes);
    if (buffered === 0) for (const resolve of written) resolve();
  });
  // A reader that went away (EPIPE) loses the lines; the service goes on.
  boom.on('error', () => {});

  return {
    destination: {
      write(line: string) {
        const bytes = Buffer.byteLength(line);
        if (buffered + bytes > options.maxBufferBytes) {
          dropped += 1;
          return;
        }
        buffered += bytes;
        if (turnStarted) {
          waiting.push(line);
          return;
        }
        turnStarted = true;
        setImmediate(endTurn);
        boom.write(line);
      },
    },
    droppedLines: () => dropped,
    bufferedBytes: () => buffered,
    flushWithin: (maxWaitMs) =>
      new Promise<void>((resolve) => {
        if (buffered === 0) return resolve();
        const done = () => {
          clearTimeout(timer);
          written.delete(done);
          resolve();
        };
        const timer = setTimeout(done, maxWaitMs);
        written.add(done);
      }),
  };
}
