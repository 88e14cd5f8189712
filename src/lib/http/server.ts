import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Express } from 'express';
import { ConfigError } from '../config/config-error.ts';
import { markContinuePending } from './expect-continue.ts';

const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

export interface ServerTimeouts {
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * Every HTTP listener of the kit (the receiver's, the metrics', the feed's) starts here.
 * Listens with explicit timeouts. Keep-alive is longer than a typical load balancer's idle
 * timeout (60 s) so the balancer closes idle connections first and never sends a request down a
 * socket we are closing; the request timeout bounds slow (slowloris) senders.
 */
export function listen(
  app: Express,
  options: {
    port: number;
    host: string;
    timeouts: ServerTimeouts;
    /** The variable that chose the port, named when it cannot be had. */
    variable?: string;
  },
): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    // Node checks the header and request timeouts only every connectionsCheckingInterval
    // (30 s by default); a slow sender must be cut close to the timeout, not up to 30 s late.
    const server = withKeepAliveControl(
      createServer({ connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS }, app),
    );
    // Only the app may invite a body (the receiver does, after the shared secret): see
    // expect-continue.ts.
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      markContinuePending(res);
      server.emit('request', req, res);
    });
    server.listen(options.port, options.host);
    server.keepAliveTimeout = options.timeouts.keepAliveTimeoutMs;
    // Node swaps the two when the headers timeout is the larger, and a slow body would then run
    // for the headers timeout: never let it exceed the request timeout (config refuses it too).
    server.headersTimeout = Math.min(
      options.timeouts.headersTimeoutMs,
      options.timeouts.requestTimeoutMs,
    );
    server.requestTimeout = options.timeouts.requestTimeoutMs;
    server.once('listening', () => resolve(server));
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why = { EADDRINUSE: 'is already in use', EACCES: 'is not permitted' }[error.code ?? ''];
      if (why === undefined || options.variable === undefined) return reject(error);
      reject(
        new ConfigError([
          `${options.variable}: ${options.host}:${options.port} ${why} (another receiver, or another program, listens there); stop it or choose another ${options.variable}`,
        ]),
      );
    });
  });
}

/** A server whose keep-alive connections can be told to end after their current answer. */
export type HttpServer = Server & { endKeepAlive(): void };

function withKeepAliveControl(server: Server): HttpServer {
  const unanswered = new Set<ServerResponse>();
  let ending = false;
  // One listener for every answer ('close' comes once: no once-wrapper, no closure per request).
  function answered(this: ServerResponse) {
    unanswered.delete(this);
  }
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (ending) res.shouldKeepAlive = false;
    unanswered.add(res);
    res.on('close', answered);
  });
  return Object.assign(server, {
    endKeepAlive() {
      ending = true;
      // Node consults shouldKeepAlive when it writes the headers: answers not yet started
      // will say `Connection: close` and end their connection.
      for (const res of unanswered) if (!res.headersSent) res.shouldKeepAlive = false;
    },
  });
}

/**
 * Stops accepting, and ends keep-alive connections: a balancer holding keep-alive connections
 * to us would otherwise keep sending on them and the server would never finish closing. Every
 * answer from now on says `Connection: close`; idle connections are closed as they appear.
 */
export function closeServer(server: HttpServer): Promise<void> {
  return new Promise<void>((resolve) => {
    server.endKeepAlive();
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    sweep.unref();
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
