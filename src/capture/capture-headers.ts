import type { IncomingHttpHeaders } from 'node:http';
import { CREDENTIAL_HEADERS } from '../lib/credential-headers.ts';

/** Transport headers belong to one hop, not to the delivery; a replaying client sets its own. */
const TRANSPORT_HEADERS: readonly string[] = [
  'host',
  'content-length',
  'transfer-encoding',
  'content-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
];

/** The headers a delivery's meaning depends on, first in a file; the rest follow sorted. */
const LEADING_HEADERS = ['content-type', 'webhookid', 'verification-signature'];

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
// What Node will put in a header value: no CR, LF or other control character but tab.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Request headers as a capture records them: names lower case, a repeated header joined with
 * ", " as Node joins it, credentials and transport headers dropped.
 */
export function captureHeaders(
  headers: IncomingHttpHeaders | Record<string, string>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || !isRecordable(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return orderHeaders(kept);
}

/** The canonical order of a file's headers, so the same delivery always writes the same text. */
export function orderHeaders(headers: Record<string, string>): Record<string, string> {
  const rank = (name: string) => {
    const index = LEADING_HEADERS.indexOf(name);
    return index === -1 ? LEADING_HEADERS.length : index;
  };
  const names = Object.keys(headers).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  return Object.fromEntries(names.map((name) => [name, headers[name] as string]));
}

/** Why a recorded header breaks the rules, or undefined. */
export function headerProblem(name: string, value: string): string | undefined {
  if (!HEADER_NAME.test(name)) return 'header names are lower-case tokens';
  if (CREDENTIAL_HEADERS.includes(name)) return 'credentials are never recorded in a capture';
  if (TRANSPORT_HEADERS.includes(name)) {
    return 'transport headers are not recorded; the replaying client sets its own';
  }
  if (!HEADER_VALUE.test(value)) {
    return 'a header value cannot hold CR, LF or control characters';
  }
  return undefined;
}

function isRecordable(name: string): boolean {
  return !CREDENTIAL_HEADERS.includes(name) && !TRANSPORT_HEADERS.includes(name);
}
