import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * The bearer token: a JWT (HS256, signed with a secret made per sandbox) whose `exp` is 60
 * minutes after issue by the sandbox clock, so moving the clock forward expires it. A client
 * caching by `exp`, renewing, and retrying once on 401 can be tested against it.
 */
const TOKEN_LIFETIME_SECONDS = 60 * 60;

export interface TokenIssuer {
  issue(subject: string): { token: string; expiresAt: Date };
  /** The subject of a valid, unexpired token; undefined for anything else. */
  verify(token: string): string | undefined;
}

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function createTokenIssuer(now: () => Date, secret: Buffer = randomBytes(32)): TokenIssuer {
  const mac = (data: string) => createHmac('sha256', secret).update(data).digest();
  return {
    issue(subject) {
      const issuedAt = Math.floor(now().getTime() / 1000);
      const exp = issuedAt + TOKEN_LIFETIME_SECONDS;
      const head = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: subject, iat: issuedAt, exp, jti: randomUUID() })}`;
      return {
        token: `${head}.${mac(head).toString('base64url')}`,
        expiresAt: new Date(exp * 1000),
      };
    },
    verify(token) {
      const parts = token.split('.');
      if (parts.length !== 3) return undefined;
      const [header, payload, signature] = parts as [string, string, string];
      const expected = mac(`${header}.${payload}`);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
          sub?: unknown;
          exp?: unknown;
        };
        if (typeof claims.exp !== 'number' || typeof claims.sub !== 'string') return undefined;
        return claims.exp * 1000 > now().getTime() ? claims.sub : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
