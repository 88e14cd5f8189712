import { Counter, Gauge, type GaugeConfiguration, type Registry } from 'prom-client';
import type { Db } from '../../lib/database/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { createCachedRead, type ReadResult } from './cached-read.ts';
import {
  REFUND_IN_DOUBT_STATES,
  readMoneyStates,
  type MoneyStates,
  type WaitingRows,
} from './money-states.ts';

/** The database is read at most this often, however often (and by how many) /metrics is scraped. */
const MONEY_STATES_MAX_AGE_MS = 5000;
/** A scrape waits at most this long for the read; the statement is cancelled by then too. */
const MONEY_STATES_TIMEOUT_MS = 2000;

/**
 * A gauge whose samples are left out of the exposition while its source could not be read: an
 * absent series says "unknown", where a 0 would say "nothing waits" (prom-client's own reset
 * leaves an unlabelled gauge at 0).
 */
class ReadGauge<T extends string> extends Gauge<T> {
  readonly #unread: () => boolean;

  constructor(configuration: GaugeConfiguration<T>, unread: () => boolean) {
    super(configuration);
    this.#unread = unread;
  }

  override async get() {
    const metric = await super.get();
    return this.#unread() ? { ...metric, values: [] } : metric;
  }
}

export interface MoneyStateMetricsOptions {
  db: Db;
  registry: Registry;
  logger: Logger;
  maxAgeMs?: number;
  timeoutMs?: number;
  now?: () => number;
}

/**
 * Registers the money-state gauges on the service's registry: read from the database when
 * /metrics is scraped (no timer of their own), through one cached read. When the read fails or
 * runs past its timeout the gauges are absent from that scrape and
 * `money_state_reads_total{result="failed"}` counts it (alert MoneyStatesUnreadable), so an
 * outage never reads as "nothing waits". Every instance serves the same numbers: read them as
 * max over instances.
 */
export function registerMoneyStateMetrics(options: MoneyStateMetricsOptions): void {
  const { registry, logger } = options;
  const reads = new Counter({
    name: 'money_state_reads_total',
    help: 'Reads of the money-state gauges from the database at scrape time: ok, or failed (the gauges are absent from that scrape).',
    labelNames: ['result'],
    registers: [registry],
    // A scrape collects every metric at once: waiting for the read here makes the count it
    // serves include the read behind the gauges beside it.
    async collect() {
      await current();
    },
  });
  for (const result of ['ok', 'failed']) reads.inc({ result }, 0);

  let previous: boolean | undefined;
  const onResult = (result: ReadResult<MoneyStates>) => {
    reads.inc({ result: result.ok ? 'ok' : 'failed' });
    // One line when the read starts failing and one when it recovers, not one per scrape.
    if (!result.ok && previous !== false) {
      logger.warn({ err: result.error }, 'money states unreadable: their gauges are absent');
    } else if (result.ok && previous === false) logger.info('money states readable again');
    previous = result.ok;
  };
  const timeoutMs = options.timeoutMs ?? MONEY_STATES_TIMEOUT_MS;
  const current = createCachedRead({
    read: () => readMoneyStates(options.db, { timeoutMs }),
    maxAgeMs: options.maxAgeMs ?? MONEY_STATES_MAX_AGE_MS,
    deadlineMs: timeoutMs,
    now: options.now ?? (() => performance.now()),
    onResult,
  });

  let unread = true;
  /** A gauge set from the latest read at each scrape. */
  const gauge = <T extends string>(
    name: string,
    help: string,
    labelNames: readonly T[],
    set: (gauge: Gauge<T>, states: MoneyStates) => void,
  ) =>
    new ReadGauge<T>(
      {
        name,
        help,
        labelNames,
        registers: [registry],
        async collect() {
          const result = await current();
          unread = !result.ok;
          if (result.ok) set(this, result.value);
        },
      },
      () => unread,
    );
  /** A count of open rows and the age of the oldest: `<prefix>_open`, `<prefix>_oldest_open_age_seconds`. */
  const pair = (prefix: string, rows: string, pick: (states: MoneyStates) => WaitingRows) => {
    gauge(`${prefix}_open`, `${rows} open now (counted up to 100,000).`, [], (g, s) =>
      g.set(pick(s).open),
    );
    gauge(
      `${prefix}_oldest_open_age_seconds`,
      `Seconds since the oldest began waiting, among: ${rows}. 0 when none is open.`,
      [],
      (g, s) => g.set(pick(s).oldestAgeSeconds),
    );
  };

  pair(
    'webhook_quarantine',
    'Quarantined deliveries (authenticated, refused, kept) not yet re-driven or resolved',
    (s) => s.quarantine,
  );
  pair(
    'webhook_conflicts',
    'Conflicts (a business key re-sent with other content) not yet resolved',
    (s) => s.conflicts,
  );
  pair(
    'recovery_payto_unmatched',
    'PayTo receipts in the platform report with no PayToReceivePayment stored, not yet resolved',
    (s) => s.paytoUnmatched,
  );
  gauge(
    'refunds_in_doubt',
    'Refunds the platform may have paid, by state: pending (sending, or left by a run that died) or unknown (no clear answer); their amounts stay held. Counted up to 100,000.',
    ['state'],
    (g, s) => {
      for (const state of REFUND_IN_DOUBT_STATES) g.set({ state }, s.refundsInDoubt[state].open);
    },
  );
  gauge(
    'refunds_oldest_in_doubt_age_seconds',
    'Seconds since the oldest refund in doubt, by state, was requested; 0 when none.',
    ['state'],
    (g, s) => {
      for (const state of REFUND_IN_DOUBT_STATES) {
        g.set({ state }, s.refundsInDoubt[state].oldestAgeSeconds);
      }
    },
  );
}
