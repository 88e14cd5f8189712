import { check, figuresOf, storageChecks } from '../core/judge.ts';
import { sleep } from '../core/net.ts';
import { histogram, standardFigures, type ScenarioResult } from '../core/report.ts';
import { outcomeOf, runLoad, type Send } from '../core/sender.ts';
import type { StoredRows } from '../core/stored.ts';
import { workloadFor, type ScenarioContext } from './context.ts';
import { exitsSince, markOutputs } from './exits.ts';
import { waitUntilReady, watchReadiness } from './readiness.ts';

const BEFORE_CUT_MS = 1500;
const AFTER_RESTORE_MS = 2000;
/** The retry must come after the database is back, as the platform's 30 s does for a short outage. */
const RETRY_MARGIN_MS = 2000;
const RECOVERY_LIMIT_MS = 10_000;
const HARD_LIMIT_MS = 90_000;

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
  const next = workloadFor(context, 'C');
  const retryDelayMs = Math.max(options.retryDelayMs, options.outageMs + RETRY_MARGIN_MS);
  const started = performance.now();
  let sent = 0;
  const phase: { restoredAt?: number } = {};

  const load = runLoad({
    baseUrl: stack.nginxUrl,
    secret: stack.secret,
    concurrency: options.concurrency,
    rate: options.rate,
    retryDelayMs,
    label: 'lb-C',
    onBody: context.onBody,
    next: () => {
      const now = performance.now();
      const over = phase.restoredAt !== undefined && now >= phase.restoredAt + AFTER_RESTORE_MS;
      if ((sent >= options.faultDeliveries && over) || now - started > HARD_LIMIT_MS) return;
      sent += 1;
      return { delivery: next(), copy: 0 };
    },
  });

  await sleep(BEFORE_CUT_MS);
  const cutAt = performance.now();
  stack.databaseProxy.cut();
  const notReady = await watchReadiness(stack.receivers, options.outageMs);
  stack.databaseProxy.restore();
  const restored = performance.now();
  phase.restoredAt = restored;
  const readyAfterMs = await waitUntilReady(stack.receivers, RECOVERY_LIMIT_MS);
  const sends = await load;

  const stored = await stack.store.read();
  const f = figuresOf(sends, stored);
  const outage = duringOutage(sends, stored, cutAt, restored);
  const firstOkAfter = Math.min(
    ...sends.flatMap((s) =>
      s.attempts.filter((a) => a.status === 200 && a.startedAt >= restored).map((a) => a.endedAt),
    ),
  );
  const exits = exitsSince(stack.receivers, marks);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

  return {
    title: 'C. database outage',
    seconds: (performance.now() - started) / 1000,
    figures: [
      ...standardFigures(f, true),
      ['outage', `${options.outageMs} ms (every connection dropped, new ones refused)`],
      ["sender's retry pause", `${retryDelayMs} ms (longer than the outage, like the 30 s)`],
      ['answers during the outage', outage.statuses || '-'],
      ['5xx during the outage', outage.fiveXX],
      [
        '/readyz not 200 during the outage',
        notReady.map((seen, i) => `${stack.receivers[i]?.name}: ${seen ? 'yes' : 'no'}`).join(', '),
      ],
      [
        'recovered: every /readyz 200 after',
        readyAfterMs === undefined ? 'never' : seconds(readyAfterMs),
      ],
      [
        'recovered: first 200 delivery after',
        Number.isFinite(firstOkAfter) ? seconds(firstOkAfter - restored) : 'never',
      ],
      ['receiver exits', exits.length > 0 ? exits.join('; ') : 'none'],
    ],
    checks: [
      ...storageChecks(f),
      check('the outage reached deliveries (5xx seen)', outage.fiveXX > 0, `${outage.fiveXX}`),
      check(
        'during the outage: only 5xx, or 200 with its row',
        outage.other === 0,
        `${outage.other} other`,
      ),
      check('readiness failed during the outage', notReady.every(Boolean)),
      check(
        'no receiver exited (recovered without a restart)',
        exits.length === 0,
        exits.join('; ') || undefined,
      ),
      check(
        `readiness back within ${RECOVERY_LIMIT_MS / 1000} s`,
        readyAfterMs !== undefined,
        readyAfterMs === undefined ? 'never' : seconds(readyAfterMs),
      ),
    ],
  };
}

/** Answers that arrived while the database was cut off. */
function duringOutage(sends: Send[], stored: StoredRows, from: number, to: number) {
  const inWindow = sends
    .flatMap((send) => send.attempts.map((answer) => ({ send, answer })))
    .filter(({ answer }) => answer.endedAt >= from && answer.endedAt <= to);
  const statuses = new Map<string, number>();
  for (const { answer } of inWindow) {
    statuses.set(outcomeOf(answer), (statuses.get(outcomeOf(answer)) ?? 0) + 1);
  }
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
