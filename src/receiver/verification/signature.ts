import { constants, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/**
 * The `Verification-Signature` header: base64 of an RSA PKCS#1 v1.5 / SHA-256 signature over the
 * exact raw body bytes.
 *
 * Decoding is strict about the alphabet and padding (a value that does not round-trip is refused,
 * so there is exactly one accepted spelling of each signature) but tolerates whitespace and line
 * breaks anywhere, since some senders wrap base64 at 76 columns. base64url (`-` and `_`, padding
 * optional) is accepted as well: a wrongly refused delivery answered with 401 is never retried by
 * the platform, and accepting it costs no security because the decoded bytes must still verify.
 * The two alphabets are never mixed within one value.
 */

export function decodeSignature(header: string | undefined): Buffer | undefined {
  if (header === undefined) return undefined;
  const compact = header.replace(/\s+/g, '');
  if (compact === '') return undefined;
  return decodeStandard(compact) ?? decodeUrlSafe(compact);
}

export function verifySignature(rawBody: Buffer, signature: Buffer, key: KeyObject): boolean {
  try {
    return verify('sha256', rawBody, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
  } catch {
    // A signature of the wrong length or a key OpenSSL refuses is simply not a match.
    return false;
  }
}

function decodeStandard(compact: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return undefined;
  const decoded = Buffer.from(compact, 'base64');
  // Node pads and zeroes trailing bits when encoding, so this refuses bad padding and
  // non-canonical spellings that Buffer.from would otherwise silently accept.
  return decoded.length > 0 && decoded.toString('base64') === compact ? decoded : undefined;
}

function decodeUrlSafe(compact: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(compact)) return undefined;
  const unpadded = compact.replace(/=+$/, '');
  if (unpadded !== compact && compact.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(unpadded, 'base64url');
  return decoded.length > 0 && decoded.toString('base64url') === unpadded ? decoded : undefined;
}
