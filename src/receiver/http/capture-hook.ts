import type { IncomingHttpHeaders } from 'node:http';

/**
 * What the receiver tells a capture hook (CAPTURE_DIR) about each delivery it answered: the
 * exact bytes and headers, and the answer. The hook is given by the composer
 * (src/capture's writer); the receiver knows nothing of files.
 */
export interface Capture {
  /** The event name as it arrived in the URL. */
  eventName: string;
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  httpStatus: number;
  outcome: string;
  errorPaths?: string[];
}
