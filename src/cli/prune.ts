/**
 * npm run prune -- [--dry-run] [--max-batches N] [--max-seconds S]     (npm run prune -- --help)
 *
 * Removes what is older than its retention, as the service's scheduled prune does: the raw
 * request of old deliveries, sent feed events, old recovery records. See docs/retention.md.
 */
export { pruneCommand as command } from '../operations/index.ts';
