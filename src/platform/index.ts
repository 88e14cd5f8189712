/**
 * The platform as a client sees it: the provider client and its two dialects (client/), the
 * refunds it pays at most once (refunds/), the recovery loop that fetches what a webhook missed
 * (recovery/), and the provider command line (cli/). Outside src/platform/, import from here, or
 * from scheduled.ts for what the running service needs (the scheduled recovery, the prune steps).
 */

export { providerCommand } from './cli/provider-command.ts';
export { recoverCommand } from './recovery/recover-cli.ts';
