import { isIP } from 'node:net';
import { z } from 'zod';

/** The kinds of value variables have, shared by the modules' settings. */

export const MIB = 1024 * 1024;

export const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const optionalText = z.string().trim().optional();

/** An interface to listen on: an IP address or a host name (no scheme, no port). */
export const listenHost = z
  .string()
  .trim()
  .refine((host) => isIP(host) !== 0 || /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(host), {
    error: 'must be an IP address or a host name',
  });

export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** This machine, as a URL's hostname spells it: plain http is safe only to these. */
export const isLoopbackHost = (hostname: string) =>
  ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);

/** Comma-separated, several at once during a rotation; blanks around commas are not part of one. */
export function commaSeparated(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
