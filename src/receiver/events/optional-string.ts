import { describeValue } from '../../lib/describe-value.ts';
import { accept, refuse, type Parsed } from './parsed.ts';

/**
 * The provider leaves an optional field out, sends null, or sends "" (its published examples
 * do all three for the same field); all three mean "no value" and become null.
 */
export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/**
 * Free text such as a name or a reference, kept exactly as sent. A whole number is accepted as
 * its digits: the published examples send AccountNumber as a bare JSON number.
 */
export function parseText(value: unknown): Parsed<string> {
  if (typeof value === 'string') return checkStorable(value);
  if (typeof value === 'number' && Number.isSafeInteger(value)) return accept(String(value));
  return refuse(`must be text (got ${describeValue(value)})`);
}

/**
 * Postgres text cannot hold U+0000, nor jsonb an unpaired UTF-16 surrogate (JSON can carry both
 * as `\u0000`, `\ud800`), so either would fail the insert and lose the delivery.
 */
export function checkStorable(text: string): Parsed<string> {
  if (text.includes('\u0000')) return refuse('contains a NUL character, which cannot be stored');
  if (!text.isWellFormed()) {
    return refuse('contains an unpaired surrogate, which cannot be stored');
  }
  return accept(text);
}
