import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { signBody } from '../../common/signing.ts';
import { sydneyDay } from '../../../src/lib/sydney-time.ts';
import { judgeChain } from '../chain/chain-judge.ts';
import { startFeedConsumer } from '../chain/consumer.ts';
import { readWholeFeed } from '../chain/feed-pages.ts';
import { MACCOUNT, startPlatform, CHAIN_EVENTS } from '../chain/platform.ts';
import { runRecoverCommand, type RecoverOutcome } from '../chain/recover-command.ts';
import { freePort, waitFor } from '../core/net.ts';
import { check, type Check, type FigureRow, type ScenarioResult } from '../core/report.ts';
import type { ScenarioContext } from './context.ts';
import { exitCheck, exitsSince, markOutputs } from './exits.ts';
import {
  cutChecks,
  cutDatabase,
  restartReceiver,
  seconds,
  type DatabaseCut,
  type Restart,
} from './faults.ts';

/**
 * Where in the load (share of the payments made) each fault begins. The cut comes first, while
 * the sandbox keeps up (a backlog would queue its retries until after the cut); the kill after
 * it, so the instance never starts (and migrates) while the database is cut off.
 */
const CUT_AT = 0.15;
const KILL_AT = 0.4;
const CONSUMER_DOWN_AT = 0.65;
/**
 * The cut lasts --outage-ms, and longer (at most this much) until the sandbox has given up on a
 * notification (both its tries fell in the cut), so recovery always has work.
 */
const CUT_EXTENSION_LIMIT_MS = 10_000;
/** The relay's POST timeout: a silent consumer costs an attempt this long. */
const FEED_HTTP_TIMEOUT_MS = 2000;
/**
 * A claim whose outcome was never recorded (its instance killed, or the database cut while the
 * POST was out) is re-sent when its lease runs out: FEED_HTTP_TIMEOUT_MS + 30 s
 * (src/feed/relay.ts). The judge waits that long, plus backoff and margin, for the last event.
 */
const FEED_WAIT_MS = FEED_HTTP_TIMEOUT_MS + 30_000 + 25_000;
const RECOVER_TIMEOUT_MS = 90_000;
const SUBSCRIBER_TIMEOUT_MS = 10_000;

/**
 * D: the whole chain. The sandbox (the platform's stand-in, retrying once) makes payments and
 * notifies nginx; both receivers store them and push each stored payment to a feed consumer
 * that verifies every POST with the standardwebhooks library. Meanwhile the database is cut
 * off, one receiver is SIGKILLed and restarted, and the consumer refuses, then stops answering.
 * Then recovery runs (the real command) against the sandbox's delivery report. Every payment
 * must be stored exactly once and reach the consumer, byte-identical to GET /feed.
 */
export async function wholeChain(context: ScenarioContext): Promise<ScenarioResult> {
  const { stack, options, cleanup } = context;
  const started = performance.now();
  const [victim, other] = stack.receivers;
  if (!victim || !other) throw new Error('the chain needs two receivers');

  const apiKey = `lb-chain-${randomBytes(12).toString('hex')}`;
  const platform = await startPlatform({ retryDelayMs: options.retryDelayMs, apiKey }, cleanup);
  const consumer = await startFeedConsumer();
  cleanup.defer('stop the feed consumer', () => consumer.close());
  const feedToken = randomBytes(24).toString('hex');
  // No log or command output may hold these either (the secrets check, after all scenarios).
  stack.leaks.addSecret('the feed secret', consumer.secret);
  stack.leaks.addSecret("the feed secret's key", consumer.secret.slice('whsec_'.length));
  stack.leaks.addSecret('the feed token', feedToken);
  stack.leaks.addSecret('the API key', apiKey);

  // The receivers, restarted configured for the chain: the sandbox's key, the push relay.
  const feedPorts = await Promise.all(stack.receivers.map(() => freePort()));
  await Promise.all(stack.receivers.map((receiver) => receiver.stop('SIGTERM')));
  await stack.store.clear();
  stack.receivers.forEach((receiver, i) =>
    receiver.reconfigure((env) => {
      // The sandbox's key, fetched as in production, instead of the harness's pinned one.
      const rest = Object.fromEntries(Object.entries(env).filter(([key]) => key !== 'SIGNING_KEY'));
      return {
        ...rest,
        SIGNING_KEY_URL: platform.keyUrl,
        SIGNING_KEY_ALLOW_HTTP: 'true',
        FEED_HTTP_URL: consumer.url,
        FEED_HTTP_SECRET: consumer.secret,
        FEED_HTTP_TIMEOUT_MS: String(FEED_HTTP_TIMEOUT_MS),
        FEED_RETRY_BASE_MS: '250',
        FEED_RETRY_MAX_MS: '2000',
        // Never dead-letter within the run: the consumer's outage is seconds long.
        FEED_MAX_AGE_MS: '600000',
        FEED_TOKEN: feedToken,
        FEED_PORT: String(feedPorts[i]),
        FEED_HOST: '127.0.0.1',
      };
    }),
  );
  await Promise.all(stack.receivers.map((receiver) => receiver.start()));
  const marks = markOutputs(stack.receivers);
  const events = CHAIN_EVENTS;
  await platform.subscribe(stack.nginxUrl, events, stack.secret);
  const setupSeconds = (performance.now() - started) / 1000;

  // The load: a fixed number of payments at a fixed rate, whatever happens downstream.
  const total = options.chainPayments;
  const loadStarted = performance.now();
  let made = 0;
  let aborted = false;
  const payFailures: string[] = [];
  let nextIndex = 0;
  const load = Promise.all(
    Array.from({ length: 4 }, async () => {
      for (;;) {
        const i = nextIndex++;
        if (i >= total || aborted) return;
        await sleep(loadStarted + (i * 1000) / options.chainRate - performance.now());
        try {
          await platform.pay(events[i % events.length] ?? 'NPPReceivePayment', i);
        } catch (error) {
          payFailures.push(error instanceof Error ? error.message : String(error));
        }
        made += 1;
      }
    }),
  );
  const reached = (share: number) =>
    waitFor(
      `${Math.round(share * 100)}% of the payments`,
      () => aborted || made >= Math.ceil(share * total),
      (total / options.chainRate) * 1000 + 60_000,
      20,
    );

  // The faults, each when its share of the payments is made; their figures in this order.
  const facts: Record<'cut' | 'kill' | 'consumer', FigureRow | undefined> = {
    cut: undefined,
    kill: undefined,
    consumer: undefined,
  };
  const gaveUpYet = () => platform.notifications().some((n) => n.status === 'Error');
  let databaseCut: DatabaseCut | undefined;
  let kill: Restart | undefined;
  const cut = (async () => {
    await reached(CUT_AT);
    const at = made;
    databaseCut = await cutDatabase(stack, options.outageMs, {
      extend: () => !gaveUpYet(),
      extendLimitMs: CUT_EXTENSION_LIMIT_MS,
    });
    const ready = databaseCut.readyAfterMs;
    facts.cut = [
      'database cut off',
      `after ${at} payments, for ${Math.round(databaseCut.lastedMs)} ms (--outage-ms ${options.outageMs}); every /readyz 200 again ${ready === undefined ? 'never' : seconds(ready)} after`,
    ];
  })();
  const killing = (async () => {
    await reached(KILL_AT);
    await cut; // never start an instance (it migrates at start) while the database is cut off
    const at = made;
    kill = await restartReceiver(victim, 'SIGKILL');
    facts.kill = [
      `${victim.name} SIGKILLed`,
      `after ${at} payments; exited in ${seconds(kill.exitedInMs)}, code ${kill.exitCode}; ready again ${seconds(kill.exitedInMs + kill.backAfterMs)} later`,
    ];
  })();
  const consumerDown = (async () => {
    await reached(CONSUMER_DOWN_AT);
    const at = made;
    try {
      consumer.setMode('refusing');
      await sleep(options.consumerDownMs / 2);
      consumer.setMode('silent');
      await sleep(options.consumerDownMs / 2);
    } finally {
      consumer.setMode('up');
    }
    facts.consumer = [
      'feed consumer down',
      `after ${at} payments: ${options.consumerDownMs / 2} ms answering 503, then ${options.consumerDownMs / 2} ms not answering`,
    ];
  })();
  const faults = await Promise.allSettled([cut, killing, consumerDown]);
  const failed = faults.find((f): f is PromiseRejectedResult => f.status === 'rejected');
  if (failed) aborted = true;
  await load;
  if (failed) throw failed.reason;
  const loadSeconds = (performance.now() - loadStarted) / 1000;

  // The platform finishes: every notification Sent, or Error after its one retry.
  const idleBefore = await platform.idle(options.retryDelayMs + 2 * SUBSCRIBER_TIMEOUT_MS + 5000);
  const gaveUp = new Set(
    platform
      .notifications()
      .filter((n) => n.status !== 'Sent')
      .map((n) => n.webhookId),
  );
  const storedBeforeRecovery = await stack.store.storedWebhookIds();

  // Recovery: the real command, for the Sydney days of the run, as an operator runs it.
  const days = [...new Set(platform.notifications().map((n) => sydneyDay(n.createdAtMs)))].sort();
  const dates = days.flatMap((day) => ['--date', day]);
  const recoverEnv = {
    ...stack.receiverEnv,
    PROVIDER_BASE_URL: platform.url,
    PROVIDER_AUTH_URL: platform.url,
    PROVIDER_API_KEY: apiKey,
    PROVIDER_MACCOUNT: MACCOUNT,
    LOG_LEVEL: 'warn',
  };
  const recoveries: RecoverOutcome[] = [];
  stack.addLog('recover command', () =>
    recoveries.map((r) => `${r.args.join(' ')}\n${r.stdout}\n${r.stderr}`).join('\n'),
  );
  // First the resends (PayTo waits for them: a receipt whose notification is being resent
  // would be counted unmatched), then again with PayTo: nothing may be left.
  recoveries.push(
    await runRecoverCommand([...dates, '--skip-payto'], recoverEnv, RECOVER_TIMEOUT_MS, cleanup),
  );
  const idleAfterResends = await platform.idle(2 * SUBSCRIBER_TIMEOUT_MS + 5000);
  recoveries.push(await runRecoverCommand(dates, recoverEnv, RECOVER_TIMEOUT_MS, cleanup));
  await platform.idle(2 * SUBSCRIBER_TIMEOUT_MS + 5000);

  // The feed drains: every event sent (a 2xx from the consumer), or a dead letter (a failure).
  const feedWaitStarted = performance.now();
  let feedSettled = true;
  try {
    await waitFor(
      'every feed event sent',
      async () => {
        const progress = await stack.store.feedProgress();
        return progress.total > 0 && (progress.unsent === 0 || progress.dead > 0);
      },
      FEED_WAIT_MS,
      250,
    );
  } catch {
    feedSettled = false;
  }
  const feedWaitSeconds = (performance.now() - feedWaitStarted) / 1000;
  const feed = await readWholeFeed(`http://127.0.0.1:${feedPorts[1]}`, feedToken);
  const rows = await stack.store.read();
  const notifications = platform.notifications();
  for (const n of notifications) {
    for (const attempt of n.attempts) context.onBody(attempt.responseBody ?? '');
  }

  // The leak check (after all scenarios) looks for the sandbox's signatures too.
  const { privateKey } = platform.sandbox.deps.keys.current();
  for (const n of notifications) stack.leaks.addSignature(signBody(n.body, privateKey));

  const judged = judgeChain({
    notifications,
    gaveUp,
    storedBeforeRecovery,
    rows,
    posts: consumer.posts(),
    feed,
    recoveries,
  });
  const exits = exitsSince(stack.receivers, marks);
  const posts = consumer.posts();
  const refused = posts.filter((post) => post.mode === 'refusing').length;
  const unanswered = posts.filter((post) => post.mode === 'silent').length;

  const figures: FigureRow[] = [
    ['events subscribed', events.join(', ')],
    ['payments the sandbox made', `${made - payFailures.length} of ${total}`],
    [
      'load',
      `${loadSeconds.toFixed(1)} s at ${options.chainRate}/s (setup ${setupSeconds.toFixed(1)} s)`,
    ],
    ["sandbox's retry delay", `${options.retryDelayMs} ms (the platform's 30 s)`],
    ...[facts.cut, facts.kill, facts.consumer].filter((row) => row !== undefined),
    ...judged.figures,
    ['waited for the feed to drain', `${feedWaitSeconds.toFixed(1)} s`],
    ['receiver exits', exits.length > 0 ? exits.join('; ') : 'none'],
  ];
  const checks: Check[] = [
    check('the sandbox accepted every payment', payFailures.length === 0, payFailures[0]),
    check(
      'the sandbox finished its deliveries before recovery and after the resends',
      idleBefore && idleAfterResends,
    ),
    check(
      `${victim.name} was SIGKILLed (no exit code) and came back`,
      kill?.exitCode === null && victim.pid() !== undefined,
    ),
    exitCheck(exits, `${victim.name} exited (code null, signal SIGKILL)`),
    ...(databaseCut ? cutChecks(databaseCut) : []),
    check(
      'the consumer outage reached the relay (POSTs refused, then POSTs unanswered)',
      refused > 0 && unanswered > 0,
      `${refused} refused, ${unanswered} unanswered`,
    ),
    ...judged.checks,
    check(
      `the feed drained within ${FEED_WAIT_MS / 1000} s`,
      feedSettled,
      `${feedWaitSeconds.toFixed(1)} s`,
    ),
  ];
  return {
    title: 'D. the whole chain (sandbox -> receivers -> feed -> consumer, then recovery)',
    seconds: (performance.now() - started) / 1000,
    figures,
    checks,
  };
}
