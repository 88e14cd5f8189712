import { PUBLIC_KEY_PATH } from '../../src/lib/platform-key.ts';
import type { CliOptions } from './cli-options.ts';
import type { Dialect } from './core/dialect.ts';

const DIALECT_LINES: Record<Dialect, string> = {
  any: 'any (every variant of every request accepted)',
  interface: "interface (only the interface document's requests)",
  public: "public (only the public reference's requests)",
};

/** Where a developer's receiver listens in the examples (npm start's default port). */
const RECEIVER_URL = 'http://127.0.0.1:3000';

/**
 * The sandbox's start-up lines: where it is, and the exact variables the command line
 * (`npm run provider`, recovery, refunds) and the receiver need to talk to it, ready to paste
 * into `.env` or a shell. The sandbox's credentials are its own, made up for this machine: printing
 * them is the point (they open nothing real).
 */
export function startBanner(
  url: string,
  options: Pick<
    CliOptions,
    'mAccount' | 'apiKey' | 'stateFile' | 'retryDelayMs' | 'dialect' | 'bare400'
  >,
  fingerprint: string,
  keyOrigin: string,
): string[] {
  const basic = Buffer.from(`${options.apiKey}:`).toString('base64');
  // PROVIDER_ENV=local alone means http://127.0.0.1:8787; the URLs say where this one really is.
  const environment = [
    'PROVIDER_ENV=local',
    `PROVIDER_BASE_URL=${url}`,
    `PROVIDER_AUTH_URL=${url}`,
    `PROVIDER_API_KEY=${options.apiKey}`,
    `PROVIDER_MACCOUNT=${options.mAccount}`,
    `SIGNING_KEY_URL=${url}${PUBLIC_KEY_PATH}`,
    'SIGNING_KEY_ALLOW_HTTP=true',
  ];
  return [
    `sandbox: ${url}   (the platform's {base_url} and {auth_url})`,
    `  mAccount ${options.mAccount}, API key ${options.apiKey}  (SANDBOX_MACCOUNT, SANDBOX_API_KEY)`,
    `  API calls: Authorization: Basic ${basic}   token: POST /au/security/oauth-v1/Token`,
    `  signing key: ${keyOrigin}, fingerprint ${fingerprint.slice(0, 16)}...`,
    `  state: ${options.stateFile ?? 'in memory'}; webhook retry after ${options.retryDelayMs} ms`,
    `  dialect: ${DIALECT_LINES[options.dialect]}  (--dialect, SANDBOX_DIALECT)`,
    ...(options.bare400 ? ['  400 answers carry no body (--bare-400)'] : []),
    '',
    'For the receiver (npm start) and the command line (npm run provider), paste:',
    '',
    ...environment.map((line) => `  ${line}`),
    '',
    `then subscribe the receiver (its WEBHOOK_SECRETS holding the token) and make something happen:`,
    '',
    `  SUBSCRIPTION_SECURITY_TOKEN=<token> npm run provider -- subscriptions --event NPPReceivePayment --target-url ${RECEIVER_URL}/webhooks/NPPReceivePayment`,
    `  npm run sandbox -- trigger npp-payment --amount 12.34${url === 'http://127.0.0.1:8787' ? '' : ` --sandbox ${url}`}`,
    '',
  ];
}
