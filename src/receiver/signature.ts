/**
 * The receiver's door to the platform's signature, for what checks a delivery as the receiver
 * does (the capture tools re-verifying a kept body, the sandbox signing as the platform): the
 * public key read and fetched within the receiver's budgets, its fingerprint, and the
 * RSA-SHA256 check over the raw body.
 */

export { checkKeyUrl, DEFAULT_MAX_KEY_BYTES, fetchSigningKey } from './verification/key-fetch.ts';
export { keyFingerprint, parsePublicKey } from './verification/public-key.ts';
export { decodeSignature, verifySignature } from './verification/signature.ts';
