/**
 * What the running service needs of the platform: the scheduled recovery (its provider client
 * loaded only when recovery is on) and the recovery records' prune steps. A door of its own so
 * that `serve` and `prune` do not load the provider command line, its client and csv-parse
 * through src/platform/index.ts.
 */

export { recoveryPruneSteps } from './recovery/prune-steps.ts';
export { startScheduledRecovery } from './recovery/scheduled-recovery.ts';
