/**
 * Operating the stored data: retention (prune, scheduled or by command), quarantine (list,
 * release, discard) and attention (gauges of the money states that wait for an operator).
 * Outside src/operations/, import from here.
 */

export { registerMoneyStateMetrics } from './attention/money-state-metrics.ts';

export { quarantineCommand } from './quarantine/quarantine-command.ts';
export { pruneCommand } from './retention/prune-cli.ts';
export { startScheduledPrune } from './retention/scheduled-prune.ts';
