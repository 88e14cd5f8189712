import { pino, type DestinationStream, type Logger } from 'pino';
import { CREDENTIAL_HEADERS } from './credential-headers.ts';

export type { Logger } from 'pino';

/**
 * The signature is stored with a delivery (so it can be verified again or replayed) but kept
 * out of logs, which travel further than the database does.
 */
const UNLOGGED_HEADERS = [...CREDENTIAL_HEADERS, 'verification-signature'];

const REDACT_PATHS = [
  ...UNLOGGED_HEADERS.flatMap((name) => [`req.headers["${name}"]`, `headers["${name}"]`]),
  'signingKey.text',
  'secret',
  'secrets',
  'password',
  'databaseUrl',
  // The platform API's credentials (provider client, recovery, refunds).
  'apiKey',
  'provider.apiKey',
  'token',
  'pin',
  'securityToken',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'monoova-webhook-receiver' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: isoTimeOncePerMillisecond(),
  };
  // Asynchronous writes to stdout: under load, lines written while a write is in flight go out
  // together in one write. The service passes its own bounded stream instead (log-stream.ts).
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

/**
 * pino's `isoTime` (`,"time":"2026-11-29T09:00:00.000Z"`), written once per millisecond: under
 * load many lines fall in the same one, and each would otherwise make a Date and two strings.
 */
function isoTimeOncePerMillisecond(): () => string {
  let at = Number.NaN;
  let text = '';
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      text = `,"time":"${new Date(now).toISOString()}"`;
    }
    return text;
  };
}
