import { describe, expect, it } from 'vitest';
import { PROVIDER_COMMANDS } from '../../../src/platform/cli/commands.ts';
import { runCommandLine } from '../../support/command-line.ts';
import { CREDENTIALS, startTestSandbox } from '../../../tools/sandbox/test/support.ts';

/** `npm run provider` / `npm run recover`, in process, against the sandbox over real HTTP. */
async function cli(argv: string[], env: Record<string, string> = {}) {
  const { code, stdout, stderr } = await runCommandLine(['provider', ...argv], env);
  return { code, out: stdout, err: stderr };
}

async function sandboxEnv(): Promise<Record<string, string>> {
  const { url } = await startTestSandbox();
  return {
    PROVIDER_BASE_URL: url,
    PROVIDER_AUTH_URL: url,
    PROVIDER_API_KEY: CREDENTIALS.apiKey,
    PROVIDER_MACCOUNT: CREDENTIALS.mAccount,
    SIGNING_KEY_ALLOW_HTTP: 'true',
    LOG_LEVEL: 'silent',
  };
}

describe('provider CLI', () => {
  it('when --help is asked of any command, then it lists that command’s options and exits 0', async () => {
    for (const command of PROVIDER_COMMANDS) {
      const { code, out } = await cli([command.name, '--help']);
      expect(code, command.name).toBe(0);
      expect(out).toContain(`npm run provider -- ${command.name}`);
    }
    expect((await cli(['--help'])).code).toBe(0);
    expect((await cli(['no-such-command'])).code).toBe(2);
    const recover = await runCommandLine(['recover', '--help']);
    const [recoverCode, recoverOut] = [recover.code, [recover.stdout]];
    expect(recoverCode).toBe(0);
    expect(recoverOut.join('')).toContain('--date');
  });

  it('when signing in, then only the expiry is printed: neither the token nor the API key', async () => {
    const env = await sandboxEnv();
    const { code, out, err } = await cli(['token'], env);
    expect(code, err).toBe(0);
    expect(JSON.parse(out)).toEqual({ expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(out + err).not.toContain(CREDENTIALS.apiKey);
    expect(out).not.toMatch(/eyJ/);
  });

  it('when the platform is local, then subscriptions accepts an http target on this machine; never one elsewhere, nor to a remote platform', async () => {
    const env = await sandboxEnv();
    const subscribe = (target: string, with_: Record<string, string>) =>
      cli(['subscriptions', '--event', 'NPPReceivePayment', '--target-url', target], with_);
    const loopback = await subscribe('http://127.0.0.1:3000/webhooks/NPPReceivePayment', env);
    expect(loopback.code, loopback.err).toBe(0);
    expect(JSON.parse(loopback.out)).toMatchObject({ subscriptionStatus: 'On' });

    const elsewhere = await subscribe('http://example.com/webhooks/NPPReceivePayment', env);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.err).toContain('http to 127.0.0.1, localhost or [::1]');
    // The platform's own sandbox cannot reach this machine: refused before anything is sent.
    const remote = await subscribe('http://127.0.0.1:3000/webhooks/NPPReceivePayment', {
      PROVIDER_ENV: 'sandbox',
      PROVIDER_API_KEY: 'k',
      LOG_LEVEL: 'silent',
    });
    expect(remote.code).toBe(2);
    expect(remote.err).toContain('must be an https URL');
  });

  it('when a request breaks the rules, then it exits 2 naming the field and sends nothing', async () => {
    const { code, err } = await cli(
      ['payid-enquiry', '--pay-id', 'not-an-email'],
      await sandboxEnv(),
    );
    expect(code).toBe(2);
    expect(JSON.parse(err)).toMatchObject({
      kind: 'invalid-request',
      fieldErrors: [{ path: 'payId' }],
    });
  });

  it('when the platform refuses, then it exits 1 with the platform’s status; wallet-search prints JSON', async () => {
    const env = await sandboxEnv();
    const refused = await cli(['resend', '--webhook-id', '42'], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.err)).toMatchObject({ kind: 'http', httpStatus: 400 });
    const search = await cli(['wallet-search'], env);
    expect(search.code).toBe(0);
    expect(JSON.parse(search.out)).toMatchObject({ mWallets: [], envelope: { status: 'Ok' } });
  });
});
