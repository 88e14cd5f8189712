import { integer } from '../../lib/config/kinds.ts';
import { defineSection, type OutputOf } from '../../lib/config/section.ts';
import { variable } from '../../lib/config/variable.ts';

const days = () => integer(0, 36_500);

/** How long raw requests, sent feed events and recovery records are kept; 0: for ever. */
export const retentionSettings = defineSection({
  variables: {
    rawDays: variable('RETENTION_RAW_DAYS', days().default(90), {
      doc: "days a delivery's raw request (`raw_body`, `headers`, `payload`: payer details) is kept, and a handled quarantine row's body after handling; never while one of its feed events is not handed on or it is part of an open conflict; `0`: for ever ([docs/retention.md](docs/retention.md))",
      section: 'Retention (docs/retention.md)',
      sectionNote:
        'Typed rows, conflicts, refunds, open quarantine rows and feed events not yet handed on are never pruned.',
    }),
    feedDays: variable('RETENTION_FEED_DAYS', days().default(30), {
      doc: 'days a feed event is kept after the relay sent it (from the start of the feed only; pending and dead events never go, and without a relay none does); `0`: for ever',
    }),
    feedAttemptsDays: variable('RETENTION_FEED_ATTEMPTS_DAYS', days().default(30), {
      doc: "days the feed's attempt log (`feed_attempts`: every send of every event to every endpoint, `feed show`, `feed attempts`) is kept; `0`: for ever",
    }),
    recoveryDays: variable('RETENTION_RECOVERY_DAYS', days().default(90), {
      doc: 'days recovery attempts, runs, unreadable report rows and progress are kept; `0`: for ever',
    }),
    intervalMs: variable('RETENTION_INTERVAL_MS', integer(0, 604_800_000).default(3_600_000), {
      doc: 'scheduled prune, least time between runs, one instance at a time; `0`: off (`npm run prune` still works)',
    }),
    batchSize: variable('RETENTION_BATCH_SIZE', integer(1, 10_000).default(1000), {
      doc: 'rows per prune batch (one short transaction each)',
    }),
    batchPauseMs: variable('RETENTION_BATCH_PAUSE_MS', integer(0, 60_000).default(100), {
      doc: 'pause between prune batches',
    }),
    runMaxMs: variable('RETENTION_RUN_MAX_MS', integer(1000, 86_400_000).default(300_000), {
      doc: 'a prune run starts no batch after this long; the next run goes on',
    }),
  },
  read: (retention) => ({ retention }),
});

/**
 * What retention needs of the feed's settings: whether a relay hands events on (FEED_HTTP_URL),
 * so that an event not yet sent is kept. Said by shape: operations never imports the feed.
 */
interface RelayKnown {
  readonly feed: { readonly relay?: object | undefined };
}

export type RetentionConfig = OutputOf<typeof retentionSettings> & RelayKnown;
