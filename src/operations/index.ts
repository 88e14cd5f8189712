/**
 * Operating the stored data: retention (prune, scheduled or by command) and quarantine (list,
 * release, discard). Outside src/operations/, import from here.
 */

export { QUARANTINE_HELP, runQuarantineCommand } from './quarantine/quarantine-command.ts';
export { runPruneCli } from './retention/prune-cli.ts';
export { startScheduledPrune } from './retention/scheduled-prune.ts';
