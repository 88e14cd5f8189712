/**
 * Headers that carry credentials: never stored, never logged, never written to a captured
 * delivery. The platform echoes the shared secret on every callback, and a leaked secret is half
 * of what a forger needs.
 */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorisation',
  'authorization',
  'cookie',
  'proxy-authorization',
];
