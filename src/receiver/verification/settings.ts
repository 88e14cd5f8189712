import { z } from 'zod';
import { commaSeparated, flag, integer, optionalText } from '../../lib/config/kinds.ts';
import { defineSection } from '../../lib/config/section.ts';
import { variable } from '../../lib/config/variable.ts';
import { platformLocationSettings, worldOf } from '../../lib/platform-location.ts';

/** The platform's signing key: pinned (SIGNING_KEY), or fetched from its endpoint and kept fresh. */
export const signingKeySettings = defineSection({
  variables: {
    text: variable('SIGNING_KEY', optionalText, {
      doc: 'pinned key: hex DER (PKCS#1 or SPKI), PEM (`PUBLIC KEY`, `RSA PUBLIC KEY`, `CERTIFICATE`) or JWK. Overrides the URL. RSA ≥ 2048 bits; private keys refused',
      secret: true,
      example: '3082010A0282010100...0203010001',
      section: "The platform's signing key",
    }),
    allowHttp: variable('SIGNING_KEY_ALLOW_HTTP', flag.default(false), {
      doc: 'allow an `http:` key URL (local tests only)',
    }),
    // Both bounded so a refetch after a failed signature always completes well inside the 30 s
    // before the platform retries a delivery signed with a rotated key.
    fetchTimeoutMs: variable('SIGNING_KEY_FETCH_TIMEOUT_MS', integer(100, 10_000).default(5000), {
      doc: 'timeout for each key fetch (at most 10000)',
    }),
    refreshCooldownMs: variable(
      'SIGNING_KEY_REFRESH_COOLDOWN_MS',
      integer(1000, 10_000).default(5000),
      {
        doc: 'after a failed signature, refetch unless a fetch began less than this ago (1000–10000)',
      },
    ),
    retryIntervalMs: variable(
      'SIGNING_KEY_RETRY_INTERVAL_MS',
      integer(0, 3_600_000).default(1000),
      { doc: 'while no key is held, least time between fetches a delivery may cause' },
    ),
    retryBackoffMaxMs: variable('SIGNING_KEY_RETRY_MAX_MS', integer(500, 30_000).default(5000), {
      doc: 'while no key is held, background retries: 0.5 s doubling to this, jittered',
    }),
    refreshIntervalMs: variable(
      'SIGNING_KEY_REFRESH_INTERVAL_MS',
      integer(0, 604_800_000).default(3_600_000),
      {
        doc: 'background refetch of the key, so a rotation is noticed before a delivery fails (0: off)',
      },
    ),
  },
  uses: { location: platformLocationSettings },
  read({ text, allowHttp, ...fetching }, { uses, problem }) {
    const url = uses.location.platformUrls.signingKeyUrl;
    // PROVIDER_ENV=local chose this machine's sandbox: its key over plain http to loopback is the
    // operator's choice already made, not one to repeat in SIGNING_KEY_ALLOW_HTTP.
    const localKey = uses.location.providerEnv === 'local' && worldOf(url) === 'local';
    const overHttp = allowHttp || localKey;
    if (!text && url.startsWith('http:') && !overHttp) {
      problem(
        'SIGNING_KEY_URL: must be https (set SIGNING_KEY_ALLOW_HTTP=true only for local testing)',
      );
    }
    return {
      signingKey: text
        ? { kind: 'configured' as const, text }
        : { kind: 'fetched' as const, url, allowHttp: overHttp, ...fetching },
    };
  },
});

/** The subscription's security token, echoed by the platform in `Authorisation`. */
export const sharedSecretSettings = defineSection({
  variables: {
    // Required unless ALLOW_NO_WEBHOOK_SECRET, a rule across both: sharedSecretRequired below.
    webhookSecrets: variable('WEBHOOK_SECRETS', z.string().optional(), {
      doc: 'comma-separated accepted `Authorisation` values (several during a rotation). Unset or blank: start-up refused (exit 2)',
      secret: true,
      defaultText: '**required**',
      example: 'Basic Rjc0MjYxOk5vdC1hLXJlYWwtc2VjcmV0',
      section: 'Shared secret',
      sectionNote:
        "The subscription's security token, which the platform echoes verbatim in `Authorisation` on every callback (e.g. `Basic Rjc0...`). A subscription made without a token sends none: then set ALLOW_NO_WEBHOOK_SECRET=true instead (the signature is still required).",
    }),
    allowNoWebhookSecret: variable('ALLOW_NO_WEBHOOK_SECRET', flag.default(false), {
      doc: '`true`: run without a shared secret (a subscription made without a token), signature only; logged as a warning. Refused together with `WEBHOOK_SECRETS`',
    }),
  },
  read: ({ webhookSecrets, allowNoWebhookSecret }) => ({
    /** Empty only when `allowNoWebhookSecret`: then the shared-secret check is skipped. */
    webhookSecrets: commaSeparated(webhookSecrets),
    allowNoWebhookSecret,
  }),
});

/**
 * A process that receives deliveries must be told about the shared secret (src/cli/config.ts
 * adds this rule for it; commands that only reach the database need not). A blank
 * WEBHOOK_SECRETS (an unfilled env file, a Compose default) must not quietly turn the secret
 * check off: running without a secret is said explicitly, with ALLOW_NO_WEBHOOK_SECRET.
 */
export const sharedSecretRequired = defineSection({
  variables: {},
  uses: { secret: sharedSecretSettings },
  read(_, { uses, problem, raw }) {
    const { webhookSecrets, allowNoWebhookSecret } = uses.secret;
    if (allowNoWebhookSecret && webhookSecrets.length > 0) {
      problem('ALLOW_NO_WEBHOOK_SECRET: is true but WEBHOOK_SECRETS is set; keep only one of them');
    }
    if (!allowNoWebhookSecret && webhookSecrets.length === 0) {
      const what = raw('WEBHOOK_SECRETS') === undefined ? 'not set' : 'blank';
      problem(
        `WEBHOOK_SECRETS: ${what}; set it to the subscription's security token (the exact Authorisation value the platform sends), or set ALLOW_NO_WEBHOOK_SECRET=true to accept deliveries checked by signature only`,
      );
    }
    return {};
  },
});
