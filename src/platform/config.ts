/**
 * The platform client's settings, a door of their own: src/cli/config.ts composes them without
 * loading the client. Where the platform is (PROVIDER_ENV and its URLs) is src/lib's, shared
 * with the receiver's signing key.
 */
export { providerClientSettings } from './client/settings.ts';
export { recoveryScheduleSettings } from './recovery/settings.ts';
