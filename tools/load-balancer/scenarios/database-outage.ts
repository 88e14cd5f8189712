import { setTimeout as sleep } from 'node:timers/promises';
import { judgeLoad } from '../core/judge.ts';
import { check, histogram, tally, type ScenarioResult } from '../core/report.ts';
import { outcomeOf, type Send } from '../core/sender.ts';
import type { StoredRows } from '../core/store.ts';
import type { ScenarioContext } from './context.ts';
import { exitCheck, exitsSince, markOutputs } from './exits.ts';
import { loadThroughFault } from './fault-load.ts';
import { cutChecks, cutDatabase, seconds } from './faults.ts';

const BEFORE_CUT_MS = 1500;
const AFTER_RESTORE_MS = 2000;
/** The retry must come after the database is back, as the platform's 30 s does for a short outage. */
const RETRY_MARGIN_MS = 2000;

/**
 * C: mid-load, the TCP proxy between the receivers and Postgres drops every connection and
 * refuses new ones, then lets them through again. During the outage every answer must be a 5xx
 * (never a 200 without a row, never a 4xx that would stop the platform's retry); readiness must
 * fail and come back without a restart; after the sender's one retry everything is stored.
 */
export async function databaseOutage(context: ScenarioContext): Promise<ScenarioResult> {
  const { stack, options } = context;
  await stack.store.clear();
  const marks = markOutputs(stack.receivers);
  const retryDelayMs = Math.max(options.retryDelayMs, options.outageMs + RETRY_MARGIN_MS);
  const started = performance.now();

  const { sends, fault: cut } = await loadThroughFault(
    context,
    'C',
    { label: 'lb-C', retryDelayMs, afterMs: AFTER_RESTORE_MS },
    async (progress) => {
      await sleep(BEFORE_CUT_MS);
      return cutDatabase(stack, options.outageMs, { onRestored: progress.over });
    },
  );

  const stored = await stack.store.read();
  const judged = judgeLoad(sends, stored, true);
  const outage = duringOutage(sends, stored, cut.startedAt, cut.restoredAt);
  const firstOkAfter = Math.min(
    ...sends.flatMap((s) =>
      s.attempts
        .filter((a) => a.status === 200 && a.startedAt >= cut.restoredAt)
        .map((a) => a.endedAt),
    ),
  );
  const exits = exitsSince(stack.receivers, marks);

  return {
    title: 'C. database outage',
    seconds: (performance.now() - started) / 1000,
    figures: [
      ...judged.figures,
      ['outage', `${options.outageMs} ms (every connection dropped, new ones refused)`],
      ["sender's retry pause", `${retryDelayMs} ms (longer than the outage, like the 30 s)`],
      ['answers during the outage', outage.statuses || '-'],
      ['5xx during the outage', outage.fiveXX],
      [
        '/readyz not 200 during the outage',
        cut.notReady
          .map((seen, i) => `${stack.receivers[i]?.name}: ${seen ? 'yes' : 'no'}`)
          .join(', '),
      ],
      [
        'recovered: every /readyz 200 after',
        cut.readyAfterMs === undefined ? 'never' : seconds(cut.readyAfterMs),
      ],
      [
        'recovered: first 200 delivery after',
        Number.isFinite(firstOkAfter) ? seconds(firstOkAfter - cut.restoredAt) : 'never',
      ],
      ['receiver exits', exits.length > 0 ? exits.join('; ') : 'none'],
    ],
    checks: [
      ...judged.checks,
      check('the outage reached deliveries (5xx seen)', outage.fiveXX > 0, `${outage.fiveXX}`),
      check(
        'during the outage: only 5xx, or 200 with its row',
        outage.other === 0,
        `${outage.other} other`,
      ),
      ...cutChecks(cut),
      exitCheck(exits),
    ],
  };
}

/** Answers that arrived while the database was cut off. */
function duringOutage(sends: Send[], stored: StoredRows, from: number, to: number) {
  const inWindow = sends
    .flatMap((send) => send.attempts.map((answer) => ({ send, answer })))
    .filter(({ answer }) => answer.endedAt >= from && answer.endedAt <= to);
  const statuses = new Map<string, number>();
  for (const { answer } of inWindow) tally(statuses, outcomeOf(answer));
  const isFiveXX = (status: number | undefined) => (status ?? 0) >= 500;
  return {
    statuses: histogram(statuses),
    fiveXX: inWindow.filter(({ answer }) => isFiveXX(answer.status)).length,
    other: inWindow.filter(
      ({ send, answer }) =>
        !isFiveXX(answer.status) &&
        !(answer.status === 200 && stored.deliveries.has(send.delivery.webhookId)),
    ).length,
  };
}
