import { judgeLoad } from '../core/judge.ts';
import { answeredBy } from '../core/http-post.ts';
import { check, type ScenarioResult } from '../core/report.ts';
import { waitFor } from '../core/net.ts';
import type { ScenarioContext } from './context.ts';
import { exitCheck, exitsSince, markOutputs } from './exits.ts';
import { loadThroughFault } from './fault-load.ts';
import { restartReceiver, seconds } from './faults.ts';

/** Load goes on this long after the restarted instance is ready, so it is seen back in rotation. */
const AFTER_RESTART_MS = 3000;

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
  const victim = stack.receivers[0];
  if (!victim) throw new Error('no receiver to restart');
  const started = performance.now();

  // Mid-load: stop one instance, then bring it back on the same port.
  const { sends, fault } = await loadThroughFault(
    context,
    signal === 'SIGTERM' ? 'BTERM' : 'BKILL',
    { label: `lb-B-${signal}`, retryDelayMs: options.retryDelayMs, afterMs: AFTER_RESTART_MS },
    async (progress) => {
      const quarter = () => progress.sent() >= options.faultDeliveries / 4;
      await waitFor('a quarter of the load', quarter, 60_000, 20);
      return { sentAtStop: progress.sent(), restart: await restartReceiver(victim, signal) };
    },
  );
  const { restart } = fault;

  const judged = judgeLoad(sends, await stack.store.read(), true);
  const exits = exitsSince(stack.receivers, marks);
  const victimAddress = `127.0.0.1:${victim.port}`;
  const servedAfterRestart = sends.filter((send) =>
    send.attempts.some(
      (answer) =>
        answer.startedAt > restart.restartedAt &&
        answer.status === 200 &&
        answeredBy(answer) === victimAddress,
    ),
  ).length;

  return {
    title: `B. restart under load (${signal})`,
    seconds: (performance.now() - started) / 1000,
    figures: [
      ...judged.figures,
      [`${signal} sent after`, `${fault.sentAtStop} deliveries`],
      [
        'stopped instance exited',
        `${seconds(restart.exitedInMs)} after ${signal}, code ${restart.exitCode}`,
      ],
      ['back on /readyz after', `${seconds(restart.backAfterMs)} (start included)`],
      ['answered by the restarted instance', servedAfterRestart],
    ],
    checks: [
      ...judged.checks,
      ...(signal === 'SIGTERM'
        ? [
            check(
              'SIGTERM: the instance exits 0 after finishing in-flight work',
              restart.exitCode === 0,
              `code ${restart.exitCode}`,
            ),
          ]
        : []),
      exitCheck(exits, `${victim.name} exited`),
      check(
        'the restarted instance is back in rotation',
        servedAfterRestart > 0,
        `${servedAfterRestart} answered`,
      ),
    ],
  };
}
