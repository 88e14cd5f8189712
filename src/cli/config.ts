import { captureSettings } from '../capture/config.ts';
import { feedSettings } from '../feed/config.ts';
import {
  loadSettings,
  secretNamesOf,
  variablesOf,
  type ConfigOf,
  type Environment,
  type LoadOptions as SettingsLoadOptions,
} from '../lib/config/load-settings.ts';
import type { Variable } from '../lib/config/variable.ts';
import { databaseSettings, embeddedPostgresSettings } from '../lib/database/settings.ts';
import { loggingSettings } from '../lib/logging-settings.ts';
import { platformLocationSettings } from '../lib/platform-location.ts';
import { retentionSettings } from '../operations/config.ts';
import { providerClientSettings, recoveryScheduleSettings } from '../platform/config.ts';
import {
  groupCommitSettings,
  listenerSettings,
  metricsSettings,
  requestSettings,
  sharedSecretRequired,
  sharedSecretSettings,
  signingKeySettings,
} from '../receiver/config.ts';

/**
 * The service's configuration: every module's settings, composed. Each variable is declared
 * once, beside the code that reads it (docs/architecture.md, "Configuration"); this list is the
 * order they are loaded in and documented in (the README's table, `.env.example`), and a section
 * comes after those it uses. tools/docs/ writes the documentation from it.
 */
const SETTINGS = [
  listenerSettings,
  databaseSettings,
  groupCommitSettings,
  embeddedPostgresSettings,
  platformLocationSettings,
  providerClientSettings,
  recoveryScheduleSettings,
  retentionSettings,
  signingKeySettings,
  sharedSecretSettings,
  requestSettings,
  metricsSettings,
  loggingSettings,
  captureSettings,
  feedSettings,
] as const;

/** What the code reads: each section's fields, side by side (`config.feed`, `config.port`). */
export type Config = ConfigOf<typeof SETTINGS>;

/** Every variable in the README table's order, with its documentation (tools/docs/ writes them out). */
export function configVariables(): Variable[] {
  return variablesOf(SETTINGS);
}

/** The variables that may come from `NAME_FILE` (a mounted secret): those marked secret. */
export const SECRET_FILE_VARIABLES: readonly string[] = secretNamesOf(SETTINGS);

export interface LoadOptions extends SettingsLoadOptions {
  /**
   * The receiver (default) must be told about the shared secret: a secret, or running without
   * one explicitly. Tools that only reach the database (migrate, export) need not.
   */
  receivesDeliveries?: boolean;
}

export function loadConfig(env: Environment, options: LoadOptions = {}): Config {
  const receiving = options.receivesDeliveries ?? true;
  return loadSettings([...SETTINGS, ...(receiving ? [sharedSecretRequired] : [])], env, options);
}

/** The configuration of a command that receives no deliveries (every command but `serve`). */
export const loadOperatorConfig = (env: Environment): Config =>
  loadConfig(env, { receivesDeliveries: false });
