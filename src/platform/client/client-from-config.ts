import type { ProviderClientConfig } from './settings.ts';
import type { Logger } from '../../lib/logger.ts';
import { createProviderClient, type ProviderClient } from './provider-client.ts';

/** The client as configured by PROVIDER_* variables. */
export function providerClientFromConfig(
  provider: ProviderClientConfig['provider'],
  logger: Logger,
  overrides: { fetch?: typeof fetch; now?: () => number } = {},
): ProviderClient {
  return createProviderClient({
    baseUrl: provider.baseUrl,
    authUrl: provider.authUrl,
    apiKey: provider.apiKey,
    mAccount: provider.mAccount,
    timeoutMs: provider.timeoutMs,
    dialect: provider.dialect,
    logger: logger.child({ component: 'provider-client' }),
    ...overrides,
  });
}
