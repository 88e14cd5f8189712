/**
 * npm run prune -- [--dry-run] [--max-batches N] [--max-seconds S]     (npm run prune -- --help)
 *
 * Removes what is older than its retention, as the service's scheduled prune does: the raw
 * request of old deliveries, sent feed events, old recovery records. See docs/retention.md.
 */
import type { OperatorIo } from '../lib/command-line/command-description.ts';
import { pruneCommand } from '../operations/index.ts';
import { loadOperatorConfig } from './config.ts';
import { PRUNE_STEPS } from './prune-steps.ts';

export const command = (io: OperatorIo) => pruneCommand(io, loadOperatorConfig, PRUNE_STEPS);
