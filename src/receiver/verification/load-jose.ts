import type joseModule from 'node-jose';

/**
 * node-jose (and the crypto libraries it pulls in) is loaded only when a key arrives as a JWK or
 * a certificate: the platform's usual hex key never needs it, and it costs ~15 MB of memory.
 */
export async function loadJose(): Promise<typeof joseModule> {
  return (await import('node-jose')).default;
}
