import { describe, expect, it } from 'vitest';
import { loadOperatorConfig } from '../../../src/cli/config.ts';
import { PROVIDER_COMMANDS } from '../../../src/platform/cli/commands.ts';
import { runCli } from '../../../src/platform/cli/run-cli.ts';
import { runRecoverCli } from '../../../src/platform/recovery/recover-cli.ts';
import { CREDENTIALS, startTestSandbox } from '../../../tools/sandbox/test/support.ts';

/** `npm run provider` / `npm run recover`, in process, against the sandbox over real HTTP. */
async function cli(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    'provider',
    PROVIDER_COMMANDS,
    {
      argv,
      env,
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      projectDir: process.cwd(),
    },
    loadOperatorConfig,
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
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
    const recoverOut: string[] = [];
    const recoverCode = await runRecoverCli(
      {
        argv: ['--help'],
        env: {},
        out: (t) => recoverOut.push(t),
        err: () => {},
        projectDir: process.cwd(),
      },
      loadOperatorConfig,
    );
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
