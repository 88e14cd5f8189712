import { z } from 'zod';
import { integer, optionalText } from '../../lib/config/kinds.ts';
import { defineSection, type OutputOf } from '../../lib/config/section.ts';
import { variable } from '../../lib/config/variable.ts';
import { platformLocationSettings } from '../../lib/platform-location.ts';
import { DIALECT_SETTINGS } from './protocol/dialect.ts';

/** The platform's API, for the provider client, recovery and refunds (never for receiving). */
export const providerClientSettings = defineSection({
  variables: {
    /** Secret. Unset: the client cannot call the platform and scheduled recovery is off. */
    apiKey: variable('PROVIDER_API_KEY', optionalText, {
      doc: 'secret: the API key for the client, recovery and refunds. Unset: those are off',
      secret: true,
    }),
    mAccount: variable('PROVIDER_MACCOUNT', optionalText, {
      doc: 'mAccount number, for the bearer token (`npm run provider -- token`). Unset: recovery skips PayTo',
      secret: true,
    }),
    timeoutMs: variable('PROVIDER_TIMEOUT_MS', integer(100, 120_000).default(15_000), {
      doc: 'timeout for each attempt of a platform call',
    }),
    dialect: variable('PROVIDER_DIALECT', z.enum(DIALECT_SETTINGS).default('auto'), {
      doc: '`auto`: interface document first, the public reference once after a refusal that proves nothing was done; `interface` or `public`: pinned, no fallback',
    }),
  },
  uses: { location: platformLocationSettings },
  read: (api, { uses }) => ({
    provider: {
      baseUrl: uses.location.platformUrls.baseUrl,
      authUrl: uses.location.platformUrls.authUrl,
      ...api,
    },
  }),
});

/** The provider client as configured (PROVIDER_* variables). */
export type ProviderClientConfig = OutputOf<typeof providerClientSettings>;
