import { describe, expect, it } from 'vitest';
import { keyFingerprint, parsePublicKey } from '../../../src/receiver/signature.ts';
import { CREDENTIALS, startTestSandbox } from './support.ts';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ACCOUNT = basic(CREDENTIALS.mAccount, CREDENTIALS.apiKey);

function claims(token: string): { exp: number; iat: number; sub: string } {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

describe('token endpoint', () => {
  it('when called with Basic mAccount:API key, then it answers a JWT whose exp is 60 minutes after issue', async () => {
    const { call } = await startTestSandbox();
    const answer = await call('POST', '/au/security/oauth-v1/Token', { auth: ACCOUNT });
    expect(answer.status).toBe(200);
    const token = String(answer.body.token);
    const { exp, iat, sub } = claims(token);
    expect(exp - iat).toBe(3600);
    expect(sub).toBe(CREDENTIALS.mAccount);
    expect(Math.abs(iat * 1000 - Date.now())).toBeLessThan(60_000);
  });

  it.each([
    ['no credentials', 'none'],
    ['a wrong API key', basic(CREDENTIALS.mAccount, 'wrong-key')],
    ['a wrong mAccount', basic('6279059700000002', CREDENTIALS.apiKey)],
    ['the API key alone', basic(CREDENTIALS.apiKey, '')],
    ['not Basic', 'Bearer abc'],
  ])('when called with %s, then 401 and no token', async (_name, auth) => {
    const { call } = await startTestSandbox();
    const answer = await call('POST', '/au/security/oauth-v1/Token', { auth });
    expect(answer.status).toBe(401);
    expect(answer.body.status).toBe('Unauthorized');
    expect(answer.body.token).toBeUndefined();
  });
});

describe('authentication of the API endpoints', () => {
  const search = '/mWallet/v1/search';

  it('when the API key is the Basic user with an empty password, or mAccount:API key is given, then 200', async () => {
    const { call } = await startTestSandbox();
    expect((await call('GET', search)).status).toBe(200);
    expect((await call('GET', search, { auth: ACCOUNT })).status).toBe(200);
  });

  it('when credentials are missing or wrong, then 401 with the endpoint envelope (errorCode on wallets)', async () => {
    const { call } = await startTestSandbox();
    for (const auth of [
      'none',
      basic('wrong-key', ''),
      basic(CREDENTIALS.apiKey, 'x'),
      'Basic !!!',
    ]) {
      const answer = await call('GET', search, { auth });
      expect(answer.status, auth).toBe(401);
      expect(answer.body).toMatchObject({ status: 'Unauthorized', errorCode: 'Unauthorized' });
      expect(answer.body.mWallets).toBeUndefined();
    }
    const report = await call('GET', '/paytoreceivables/v1/report/20240101000000', {
      auth: 'none',
    });
    expect(report.status).toBe(401);
    expect(report.body.errorCode).toBeUndefined();
    expect(report.body.ndeFileDetails).toBeUndefined();
  });

  it('when a bearer token is presented, then it is accepted until the sandbox clock passes its exp', async () => {
    const { call } = await startTestSandbox();
    const token = String(
      (await call('POST', '/au/security/oauth-v1/Token', { auth: ACCOUNT })).body.token,
    );
    expect((await call('GET', search, { auth: `Bearer ${token}` })).status).toBe(200);
    await call('POST', '/sandbox/clock', { body: { seconds: 3540 } });
    expect((await call('GET', search, { auth: `Bearer ${token}` })).status).toBe(200);
    await call('POST', '/sandbox/clock', { body: { seconds: 61 } });
    const expired = await call('GET', search, { auth: `Bearer ${token}` });
    expect(expired.status).toBe(401);
    const renewed = String(
      (await call('POST', '/au/security/oauth-v1/Token', { auth: ACCOUNT })).body.token,
    );
    expect((await call('GET', search, { auth: `Bearer ${renewed}` })).status).toBe(200);
  });

  it('when a bearer token is tampered with or comes from another sandbox, then 401', async () => {
    const { call } = await startTestSandbox();
    const other = await startTestSandbox();
    const token = String(
      (await call('POST', '/au/security/oauth-v1/Token', { auth: ACCOUNT })).body.token,
    );
    const foreign = String(
      (await other.call('POST', '/au/security/oauth-v1/Token', { auth: ACCOUNT })).body.token,
    );
    const [head, , signature] = token.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ sub: 'x', exp: 9_999_999_999 })).toString(
      'base64url',
    );
    for (const bad of [`${head}.${forgedPayload}.${signature}`, foreign, 'not-a-jwt']) {
      expect((await call('GET', search, { auth: `Bearer ${bad}` })).status).toBe(401);
    }
  });
});

describe('public key endpoint', () => {
  it('when fetched without credentials, then it is the signing key as upper-case hex DER PKCS#1', async () => {
    const { call, keys } = await startTestSandbox();
    const answer = await call('GET', '/public/v1/certificate/public-key', { auth: 'none' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/octet-stream');
    expect(answer.text).toMatch(/^[0-9A-F]+$/);
    expect(keyFingerprint(await parsePublicKey(answer.text))).toBe(keys.fingerprint());
  });
});
