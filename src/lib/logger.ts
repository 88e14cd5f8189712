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
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // Asynchronous writes to stdout: under load, lines written while a write is in flight go out
  // together in one write. The service passes its own bounded stream instead (log-stream.ts).
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
