import { check, figuresOf, storageChecks } from '../core/judge.ts';
import { sleep, waitFor } from '../core/net.ts';
import { standardFigures, type ScenarioResult } from '../core/report.ts';
import { runLoad } from '../core/sender.ts';
import { exitsSince, markOutputs } from './exits.ts';
import { workloadFor, type ScenarioContext } from './context.ts';

/** Load goes on this long after the restarted instance is ready, so it is seen back in rotation. */
const AFTER_RESTART_MS = 3000;
const HARD_LIMIT_MS = 90_000;

/**
 * B: deliveries flow through nginx while one instance is stopped (SIGTERM: graceful; SIGKILL:
 * in-flight work cut off) and started again. The sender retries a failed delivery once. Every
 * delivery must end stored exactly once, and every 200 must have its row.
 */
export async function restartUnderLoad(
  context: ScenarioContext,
  signal: 'SIGTERM' | 'SIGKILL',
): Promise<ScenarioResult> {
  const { stack, options } = context;
  await stack.store.clear();
  const marks = markOutputs(stack.receivers);
  const next = workloadFor(context, signal === 'SIGTERM' ? 'BTERM' : 'BKILL');
  const victim = stack.receivers[0];
  if (!victim) throw new Error('no receiver to restart');
  const started = performance.now();
  let sent = 0;
  let restartedAt: number | undefined;
  let aborted = false;

  const load = runLoad({
    baseUrl: stack.nginxUrl,
    secret: stack.secret,
    concurrency: options.concurrency,
    rate: options.rate,
    retryDelayMs: options.retryDelayMs,
    label: `lb-B-${signal}`,
    onBody: context.onBody,
    next: () => {
      const now = performance.now();
      const finished =
        sent >= options.faultDeliveries &&
        restartedAt !== undefined &&
        now >= restartedAt + AFTER_RESTART_MS;
      if (finished || aborted || now - started > HARD_LIMIT_MS) return undefined;
      sent += 1;
      return { delivery: next(), copy: 0 };
    },
  });

  // Mid-load: stop one instance, then bring it back on the same port.
  let sentAtStop = 0;
  let stoppedAt = 0;
  let exitedAt = 0;
  let exitCode: number | null = null;
  try {
    await waitFor('a quarter of the load', () => sent >= options.faultDeliveries / 4, 60_000, 20);
    sentAtStop = sent;
    stoppedAt = performance.now();
    exitCode = await victim.stop(signal);
    exitedAt = performance.now();
    await sleep(250);
    await victim.start();
    restartedAt = performance.now();
  } catch (error) {
    aborted = true;
    await load;
    throw error;
  }
  const sends = await load;

  const stored = await stack.store.read();
  const f = figuresOf(sends, stored);
  const exits = exitsSince(stack.receivers, marks);
  const victimAddress = `127.0.0.1:${victim.port}`;
  const servedAfterRestart = sends.filter((send) =>
    send.attempts.some(
      (answer) =>
        answer.startedAt > (restartedAt ?? Infinity) &&
        answer.status === 200 &&
        answer.upstream?.split(',').pop()?.trim() === victimAddress,
    ),
  ).length;

  return {
    title: `B. restart under load (${signal})`,
    seconds: (performance.now() - started) / 1000,
    figures: [
      ...standardFigures(f, true),
      [`${signal} sent after`, `${sentAtStop} deliveries`],
      [
        'stopped instance exited',
        `${((exitedAt - stoppedAt) / 1000).toFixed(2)} s after ${signal}, code ${exitCode}`,
      ],
      [
        'back on /readyz after',
        `${((restartedAt - exitedAt) / 1000).toFixed(2)} s (start included)`,
      ],
      ['answered by the restarted instance', servedAfterRestart],
    ],
    checks: [
      ...storageChecks(f),
      ...(signal === 'SIGTERM'
        ? [
            check(
              'SIGTERM: the instance exits 0 after finishing in-flight work',
              exitCode === 0,
              `code ${exitCode}`,
            ),
          ]
        : []),
      check(
        'no other exit than the one caused',
        exits.length === 1 && exits[0]?.startsWith(`${victim.name} exited`) === true,
        exits.join('; '),
      ),
      check(
        'the restarted instance is back in rotation',
        servedAfterRestart > 0,
        `${servedAfterRestart} answered`,
      ),
    ],
  };
}
