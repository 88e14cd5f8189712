import { getStatus, sleep } from '../core/net.ts';
import type { Receiver } from '../core/processes.ts';

const INTERVAL_MS = 200;

const readyz = (receiver: Receiver) => getStatus(`${receiver.baseUrl}/readyz`, INTERVAL_MS * 5);

/** Polls every receiver's /readyz for `durationMs`; says, for each, whether it ever was not 200. */
export async function watchReadiness(
  receivers: Receiver[],
  durationMs: number,
): Promise<boolean[]> {
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
export async function waitUntilReady(
  receivers: Receiver[],
  limitMs: number,
): Promise<number | undefined> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (receivers.some((receiver) => receiver.pid() === undefined)) return undefined;
    const statuses = await Promise.all(receivers.map(readyz));
    if (statuses.every((status) => status === 200)) return performance.now() - started;
    await sleep(50);
  }
  return undefined;
}
