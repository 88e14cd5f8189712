import type { IncomingHttpHeaders } from 'node:http';
import { CREDENTIAL_HEADERS } from '../../lib/credential-headers.ts';

/** Request headers as kept with a delivery: credentials removed, repeated headers joined. */
export function storedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || CREDENTIAL_HEADERS.includes(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
