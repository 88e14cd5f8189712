import { z } from 'zod';
import { httpUrl, isLoopbackHost } from './config/kinds.ts';
import { defineSection } from './config/section.ts';
import { variable } from './config/variable.ts';
import { PUBLIC_KEY_PATH } from './platform-key.ts';

/**
 * Where the platform is, for everything that talks to it: its API and token issuer (the
 * provider client, recovery, refunds) and its signing key's endpoint (the receiver). One setting,
 * PROVIDER_ENV, chooses all three; the rules below keep them on one platform.
 */

/** `local`: this project's offline sandbox (`npm run sandbox`) on its default address. */
const LOCAL_SANDBOX_URL = 'http://127.0.0.1:8787';

const PROVIDER_BASE_URLS = {
  local: LOCAL_SANDBOX_URL,
  sandbox: 'https://api.m-pay.com.au',
  production: 'https://api.mpay.com.au',
} as const;

/** Where the platform issues bearer tokens (a different host from the payments API). */
const PROVIDER_AUTH_URLS = {
  local: LOCAL_SANDBOX_URL,
  sandbox: 'https://sand-api.monoova.com',
  production: 'https://api.monoova.com',
} as const;

type ProviderEnv = keyof typeof PROVIDER_BASE_URLS;

/**
 * Which of the three worlds a URL belongs to: this machine, the platform's sandbox, its
 * production, or a host of the operator's own (a proxy, say).
 */
export function worldOf(text: string): ProviderEnv | 'own host' {
  const url = new URL(text);
  if (isLoopbackHost(url.hostname)) return 'local';
  for (const env of ['sandbox', 'production'] as const) {
    const hosts = [PROVIDER_BASE_URLS[env], PROVIDER_AUTH_URLS[env]].map((u) => new URL(u).host);
    if (hosts.includes(url.host)) return env;
  }
  return 'own host';
}

/** Credentials travel to these: https, or plain http to this machine only (a local sandbox). */
const providerUrl = () =>
  httpUrl
    .refine(
      isSafeProviderUrl,
      'must be https (plain http only to 127.0.0.1, localhost or [::1]), without credentials',
    )
    .transform((url) => url.replace(/\/+$/, ''))
    .optional();

function isSafeProviderUrl(text: string): boolean {
  const url = new URL(text);
  if (url.username !== '' || url.password !== '') return false;
  return url.protocol === 'https:' || isLoopbackHost(url.hostname);
}

interface Chosen {
  providerEnv: ProviderEnv;
  baseUrl?: string | undefined;
  authUrl?: string | undefined;
  signingKeyUrl?: string | undefined;
}

/**
 * The API key (and the mAccount, at sign-in) travel to both URLs, so both must be in one world:
 * a local PROVIDER_BASE_URL beside a token host derived for production would send the
 * credentials to production, where refused sign-ins lock the account.
 */
function providerWorldProblems(e: Chosen): string[] {
  const base = e.baseUrl ?? PROVIDER_BASE_URLS[e.providerEnv];
  const auth = e.authUrl ?? PROVIDER_AUTH_URLS[e.providerEnv];
  const [baseWorld, authWorld] = [worldOf(base), worldOf(auth)];
  if (baseWorld === authWorld) return [];
  const said = (name: string, value: string | undefined, world: string) =>
    `${name} (${value === undefined ? `from PROVIDER_ENV=${e.providerEnv}` : 'set'}: ${world})`;
  return [
    `PROVIDER_BASE_URL, PROVIDER_AUTH_URL: must point at one platform: ${said('PROVIDER_BASE_URL', e.baseUrl, baseWorld)} but ${said('PROVIDER_AUTH_URL', e.authUrl, authWorld)}; set PROVIDER_ENV (local, sandbox or production) alone, or both URLs`,
  ];
}

/**
 * The signing key decides whose deliveries are trusted: a key URL on the other platform's host
 * (the sandbox's key beside PROVIDER_ENV=production, or the reverse) would let a production
 * receiver accept sandbox-signed deliveries. Checked when the platform was chosen explicitly
 * (PROVIDER_ENV or PROVIDER_BASE_URL set): a receiver that only sets SIGNING_KEY_URL and leaves
 * PROVIDER_ENV at its default has chosen its platform by that URL alone.
 */
function signingKeyWorldProblems(e: Chosen, chosenExplicitly: boolean): string[] {
  if (e.signingKeyUrl === undefined || !chosenExplicitly) return [];
  const platforms = ['sandbox', 'production'];
  const platformWorld = worldOf(e.baseUrl ?? PROVIDER_BASE_URLS[e.providerEnv]);
  const keyWorld = worldOf(e.signingKeyUrl);
  if (!platforms.includes(platformWorld) || !platforms.includes(keyWorld)) return [];
  if (platformWorld === keyWorld) return [];
  const chosenBy =
    e.baseUrl === undefined
      ? `PROVIDER_ENV=${e.providerEnv}`
      : `PROVIDER_BASE_URL (set: ${platformWorld}, PROVIDER_ENV=${e.providerEnv})`;
  return [
    `PROVIDER_ENV, SIGNING_KEY_URL: must point at one platform: ${chosenBy} but SIGNING_KEY_URL is the ${keyWorld} platform's host (${new URL(e.signingKeyUrl).host}), so deliveries signed by the ${keyWorld} platform would be trusted; unset SIGNING_KEY_URL (it derives from PROVIDER_ENV) or point it at the ${platformWorld} platform`,
  ];
}

export const platformLocationSettings = defineSection({
  variables: {
    providerEnv: variable(
      'PROVIDER_ENV',
      z.enum(['local', 'sandbox', 'production']).default('production'),
      {
        doc: 'one setting for every platform URL: `local` (`npm run sandbox` on `http://127.0.0.1:8787`), `sandbox` (`https://api.m-pay.com.au`) or `production`',
        section: 'The platform: where it is, and its API (provider client, recovery, refunds)',
        sectionNote:
          'A refused sign-in (PROVIDER_API_KEY with PROVIDER_MACCOUNT) is never retried, since the platform locks the account: fix the value and restart.',
      },
    ),
    signingKeyUrl: variable('SIGNING_KEY_URL', httpUrl.optional(), {
      doc: "`{PROVIDER_BASE_URL}/public/v1/certificate/public-key`; https only. On the other platform's host than `PROVIDER_ENV` (or `PROVIDER_BASE_URL`) chose (the sandbox's key with `production`, or the reverse): refused at start",
      defaultText: 'derived from `PROVIDER_ENV`',
      example: `${PROVIDER_BASE_URLS.production}${PUBLIC_KEY_PATH}`,
    }),
    baseUrl: variable('PROVIDER_BASE_URL', providerUrl(), {
      doc: "the platform's API (`https://api.mpay.com.au` / `https://api.m-pay.com.au`); https, or http to 127.0.0.1/localhost only",
      defaultText: 'derived from `PROVIDER_ENV`',
      example: PROVIDER_BASE_URLS.production,
    }),
    authUrl: variable('PROVIDER_AUTH_URL', providerUrl(), {
      doc: 'token issuer (`https://api.monoova.com` / `https://sand-api.monoova.com`); same rule. Both URLs must point at one platform (local, sandbox, production or your own host): a mix is refused at start',
      defaultText: 'derived from `PROVIDER_ENV`',
      example: PROVIDER_AUTH_URLS.production,
    }),
  },
  read(chosen, { problem, raw }) {
    const explicitly = [raw('PROVIDER_ENV'), raw('PROVIDER_BASE_URL')].some((v) => !!v?.trim());
    providerWorldProblems(chosen).forEach(problem);
    signingKeyWorldProblems(chosen, explicitly).forEach(problem);
    const baseUrl = chosen.baseUrl ?? PROVIDER_BASE_URLS[chosen.providerEnv];
    return {
      providerEnv: chosen.providerEnv,
      /** The platform's three addresses, each as set or derived from PROVIDER_ENV. */
      platformUrls: {
        baseUrl,
        authUrl: chosen.authUrl ?? PROVIDER_AUTH_URLS[chosen.providerEnv],
        signingKeyUrl: chosen.signingKeyUrl ?? `${baseUrl}${PUBLIC_KEY_PATH}`,
      },
    };
  },
});
