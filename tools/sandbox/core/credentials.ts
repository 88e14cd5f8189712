import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Dialect } from './dialect.ts';
import { sendError } from './envelope.ts';
import type { TokenIssuer } from './token.ts';

export interface Credentials {
  /** The mAccount number (16 digits). */
  mAccount: string;
  apiKey: string;
}

/** Both sides hashed first, so the comparison takes the same time whatever the lengths. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/=]{1,1024}) *$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0
    ? { user: decoded, password: '' }
    : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The token endpoint's credential: Basic, mAccount number as user, API key as password. */
export function isAccountCredential(header: string | undefined, credentials: Credentials): boolean {
  const basic = parseBasic(header);
  if (!basic) return false;
  // Both compared, always, so a wrong mAccount takes as long as a wrong key.
  const account = sameSecret(basic.user, credentials.mAccount);
  const key = sameSecret(basic.password, credentials.apiKey);
  return account && key;
}

/**
 * The API endpoints: Basic with the API key as user and an empty password (the rule of both
 * documents for these hosts). The `any` dialect also takes Basic mAccount:API key (the token
 * endpoint's form, which the refund's undescribed Basic scheme may mean) and a bearer token
 * from the token endpoint that has not expired; a strict dialect does not, so a client that
 * sends those is caught. Anything else: 401 in the endpoint's envelope.
 */
export function requireApiKey(credentials: Credentials, tokens: TokenIssuer, dialect: Dialect) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.get('authorization');
    const bearer = /^Bearer +(\S{1,4096}) *$/i.exec(header ?? '');
    const basic = parseBasic(header);
    const apiKeyOnly =
      basic !== undefined && sameSecret(basic.user, credentials.apiKey) && basic.password === '';
    const allowed =
      dialect !== 'any'
        ? !bearer && apiKeyOnly
        : bearer
          ? tokens.verify(bearer[1] as string) !== undefined
          : apiKeyOnly || isAccountCredential(header, credentials);
    if (allowed) return next();
    sendError(
      res,
      401,
      header === undefined ? 'Credentials are missing' : 'Credentials are invalid or not permitted',
    );
  };
}
