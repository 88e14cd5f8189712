import type { Request, Response } from 'express';

/** How long a refused client gets to read our answer before its connection is dropped. */
const LINGER_MS = 1000;

/**
 * For answers sent before the body was read (too large, overloaded): the rest of the body is
 * never read. The answer says the connection closes; once written, our side of the socket ends
 * and, shortly after, the socket goes, rather than Node draining whatever the client still sends.
 */
export function closeConnectionAfterAnswer(req: Request, res: Response): void {
  res.setHeader('Connection', 'close');
  res.on('finish', () => {
    req.pause();
    req.socket.end();
    setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  });
}
