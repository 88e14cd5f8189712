/**
 * The platform as a client sees it: the provider client and its two dialects (client/), the
 * refunds it pays at most once (refunds/), the recovery loop that fetches what a webhook missed
 * (recovery/), and the provider command line (cli/). Outside src/platform/, import from here.
 */

export { PROVIDER_COMMANDS } from './cli/commands.ts';
export { runCli } from './cli/run-cli.ts';
export { recoveryPruneSteps } from './recovery/prune-steps.ts';
export { runRecoverCli } from './recovery/recover-cli.ts';
export { startScheduledRecovery } from './recovery/scheduled-recovery.ts';
