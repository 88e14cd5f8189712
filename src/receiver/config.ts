/**
 * The receiver's settings, a door of their own (like app.ts): src/cli/config.ts composes them
 * without loading anything else of the receiver. Each section lives beside the code that reads it.
 */
export { listenerSettings, metricsSettings, requestSettings } from './http/settings.ts';
export { groupCommitSettings } from './storage/settings.ts';
export {
  sharedSecretRequired,
  sharedSecretSettings,
  signingKeySettings,
} from './verification/settings.ts';
