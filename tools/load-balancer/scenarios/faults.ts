import { setTimeout as sleep } from 'node:timers/promises';
import { check, type Check } from '../core/report.ts';
import type { Receiver } from '../core/processes.ts';
import type { Stack } from '../core/stack.ts';
import { getStatus } from '../core/net.ts';

/** Every /readyz must be 200 again this soon after the database is back, without a restart. */
const RECOVERY_LIMIT_MS = 10_000;

export interface DatabaseCut {
  startedAt: number;
  restoredAt: number;
  lastedMs: number;
  /** Per receiver: was its /readyz ever not 200 during the cut? */
  notReady: boolean[];
  /** Until every /readyz was 200 again after the cut; undefined: not within the limit. */
  readyAfterMs: number | undefined;
}

/**
 * The database cut off (every connection dropped, new ones refused) for `outageMs`, and on while
 * `extend` says so (at most `extendLimitMs` more); `onRestored` is told the moment it is back.
 */
export async function cutDatabase(
  stack: Stack,
  outageMs: number,
  o: { extend?: () => boolean; extendLimitMs?: number; onRestored?: () => void } = {},
): Promise<DatabaseCut> {
  const startedAt = performance.now();
  stack.databaseProxy.cut();
  let notReady: boolean[] = [];
  try {
    notReady = await watchReadiness(stack.receivers, outageMs);
    const limit = performance.now() + (o.extendLimitMs ?? 0);
    while (o.extend?.() && performance.now() < limit) await sleep(100);
  } finally {
    stack.databaseProxy.restore();
  }
  const restoredAt = performance.now();
  o.onRestored?.();
  const readyAfterMs = await waitUntilReady(stack.receivers, RECOVERY_LIMIT_MS);
  return { startedAt, restoredAt, lastedMs: restoredAt - startedAt, notReady, readyAfterMs };
}

export function cutChecks(cut: DatabaseCut): Check[] {
  return [
    check(
      'readiness failed during the database cut',
      cut.notReady.length > 0 && cut.notReady.every(Boolean),
    ),
    check(
      `readiness back within ${RECOVERY_LIMIT_MS / 1000} s of the cut's end`,
      cut.readyAfterMs !== undefined,
      cut.readyAfterMs === undefined ? 'never' : seconds(cut.readyAfterMs),
    ),
  ];
}

export interface Restart {
  signal: NodeJS.Signals;
  exitCode: number | null;
  exitedInMs: number;
  /** From the exit until it answered /readyz 200 again (its start included). */
  backAfterMs: number;
  restartedAt: number;
}

/** One receiver stopped with `signal` and started again on the same port. */
export async function restartReceiver(victim: Receiver, signal: NodeJS.Signals): Promise<Restart> {
  const stoppedAt = performance.now();
  const exitCode = await victim.stop(signal);
  const exitedAt = performance.now();
  await sleep(250);
  await victim.start();
  const restartedAt = performance.now();
  return {
    signal,
    exitCode,
    exitedInMs: exitedAt - stoppedAt,
    backAfterMs: restartedAt - exitedAt,
    restartedAt,
  };
}

/** How often each /readyz is asked during and after a cut. */
const INTERVAL_MS = 200;

const readyz = (receiver: Receiver) => getStatus(`${receiver.baseUrl}/readyz`, INTERVAL_MS * 5);

/** Polls every receiver's /readyz for `durationMs`; says, for each, whether it ever was not 200. */
async function watchReadiness(receivers: Receiver[], durationMs: number): Promise<boolean[]> {
  const notReady = receivers.map(() => false);
  const until = performance.now() + durationMs;
  while (performance.now() < until) {
    const statuses = await Promise.all(receivers.map(readyz));
    statuses.forEach((status, i) => {
      if (status !== 200) notReady[i] = true;
    });
    await sleep(Math.min(INTERVAL_MS, until - performance.now()));
  }
  return notReady;
}

/**
 * Milliseconds until every receiver answers /readyz 200; undefined if that does not happen
 * within `limitMs` or a receiver is no longer running (no point waiting for it).
 */
async function waitUntilReady(receivers: Receiver[], limitMs: number): Promise<number | undefined> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (receivers.some((receiver) => receiver.pid() === undefined)) return undefined;
    const statuses = await Promise.all(receivers.map(readyz));
    if (statuses.every((status) => status === 200)) return performance.now() - started;
    await sleep(50);
  }
  return undefined;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
