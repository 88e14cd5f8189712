/** Operations' settings, a door of their own: src/cli/config.ts composes them. */
export { retentionSettings } from './retention/settings.ts';
