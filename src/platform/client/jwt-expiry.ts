/**
 * When a bearer token stops being valid. The token answer has no expiry field; the platform's
 * documents disagree on the lifetime (60 minutes vs 24 hours) and its own sample code reads the
 * JWT's `exp`. So: `exp` when the token is a JWT carrying one, else the documented 60 minutes.
 * The token's signature is not checked: we only hand the token back to its issuer.
 */
const DEFAULT_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

export function tokenExpiresAt(token: string, issuedAtMs: number): number {
  const exp = jwtExp(token);
  return exp === undefined ? issuedAtMs + DEFAULT_TOKEN_LIFETIME_MS : exp * 1000;
}

function jwtExp(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    const exp = (payload as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) && exp > 0 ? exp : undefined;
  } catch {
    return undefined;
  }
}
