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
  const boom = new sonicBoom.SonicBoom({
    fd: options.fd,
    sync: false,
    maxLength: options.maxBufferBytes,
  });
  let dropped = 0;
  let buffered = 0;
  const written = new Set<() => void>();
  // sonic-boom drops a whole write (one line: pino writes each line at once) when it would
  // overflow the buffer, and says so synchronously.
  boom.on('drop', () => (dropped += 1));
  boom.on('write', (bytes: number) => {
    buffered = Math.max(0, buffered - bytes);
    if (buffered === 0) for (const resolve of written) resolve();
  });
  // A reader that went away (EPIPE) loses the lines; the service goes on.
  boom.on('error', () => {});

  return {
    destination: {
      write(line: string) {
        const droppedBefore = dropped;
        boom.write(line);
        if (dropped === droppedBefore) buffered += Buffer.byteLength(line);
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
