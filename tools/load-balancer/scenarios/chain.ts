import { randomBytes } from 'node:crypto';
import { signBody } from '../../common/signing.ts';
import { sydneyDay } from '../../../src/lib/sydney-time.ts';
import { openChainDatabase } from '../chain/chain-rows.ts';
import { judgeChain } from '../chain/chain-judge.ts';
import { startFeedConsumer } from '../chain/consumer.ts';
import { readWholeFeed } from '../chain/feed-pages.ts';
import {
  directCreditUnsupported,
  MACCOUNT,
  startPlatform,
  type ChainEvent,
} from '../chain/platform.ts';
import { runRecoverCommand, type RecoverOutcome } from '../chain/recover-command.ts';
import { check, type Check } from '../core/judge.ts';
import { freePort, sleep, waitFor } from '../core/net.ts';
import type { FigureRow, ScenarioResult } from '../core/report.ts';
import type { ScenarioContext } from './context.ts';
import { exitsSince, markOutputs } from './exits.ts';
import { waitUntilReady, watchReadiness } from './readiness.ts';

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
const RECOVERY_LIMIT_MS = 10_000;
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
  const db = openChainDatabase(stack.databaseUrl);
  cleanup.defer('close the chain database pool', () => db.close());

  // The receivers, restarted configured for the chain: the sandbox's key, the push relay.
  const feedToken = randomBytes(24).toString('hex');
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
  // InboundDirectCredit only once both the sandbox and the receiver model it the same way.
  const directCredit = await directCreditUnsupported(platform, db.tableExists);
  const events: ChainEvent[] = [
    'NPPReceivePayment',
    'PayToReceivePayment',
    ...(directCredit === undefined ? (['InboundDirectCredit'] as const) : []),
  ];
  const leftOut = directCredit === undefined ? [] : [`InboundDirectCredit: ${directCredit}`];
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
          await platform.pay(events[i % events.length] as ChainEvent, i);
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
  const since = (t: number) => `${((performance.now() - t) / 1000).toFixed(2)} s`;

  // The faults, each when its share of the payments is made; their figures in this order.
  const facts: Record<'cut' | 'kill' | 'consumer', FigureRow | undefined> = {
    cut: undefined,
    kill: undefined,
    consumer: undefined,
  };
  const gaveUpYet = () => platform.notifications().some((n) => n.status === 'Error');
  let killExit: number | null | undefined;
  let notReady: boolean[] = [];
  let readyAfterMs: number | undefined;
  const cut = (async () => {
    await reached(CUT_AT);
    const at = made;
    const cutAt = performance.now();
    stack.databaseProxy.cut();
    try {
      notReady = await watchReadiness(stack.receivers, options.outageMs);
      const limit = performance.now() + CUT_EXTENSION_LIMIT_MS;
      while (!gaveUpYet() && performance.now() < limit) await sleep(100);
    } finally {
      stack.databaseProxy.restore();
    }
    const lasted = Math.round(performance.now() - cutAt);
    readyAfterMs = await waitUntilReady(stack.receivers, RECOVERY_LIMIT_MS);
    facts.cut = [
      'database cut off',
      `after ${at} payments, for ${lasted} ms (--outage-ms ${options.outageMs}); every /readyz 200 again ${readyAfterMs === undefined ? 'never' : `${(readyAfterMs / 1000).toFixed(2)} s`} after`,
    ];
  })();
  const kill = (async () => {
    await reached(KILL_AT);
    await cut; // never start an instance (it migrates at start) while the database is cut off
    const at = made;
    const killedAt = performance.now();
    killExit = await victim.stop('SIGKILL');
    const exitedIn = since(killedAt);
    await sleep(250);
    await victim.start();
    facts.kill = [
      `${victim.name} SIGKILLed`,
      `after ${at} payments; exited in ${exitedIn}, code ${killExit}; ready again ${since(killedAt)} later`,
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
  const faults = await Promise.allSettled([cut, kill, consumerDown]);
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
  const storedBeforeRecovery = await db.storedWebhookIds();

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
        const progress = await db.feedProgress();
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
  const rows = await db.read();
  const notifications = platform.notifications();
  for (const n of notifications) {
    for (const attempt of n.attempts) context.onBody(attempt.responseBody ?? '');
  }

  // The leak check (after all scenarios) looks for the sandbox's signatures too.
  const { privateKey } = platform.sandbox.deps.keys.current();
  for (const n of notifications) stack.leaks.addSignature(signBody(n.body, privateKey));
  const secretsSeen = chainSecretsIn(
    [
      ...stack.receivers.map((receiver) => receiver.output()),
      ...recoveries.flatMap((r) => [r.stdout, r.stderr]),
    ],
    [consumer.secret, consumer.secret.slice('whsec_'.length), feedToken, apiKey],
  );

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
    ...leftOut.map((line) => ['left out', line] as const),
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
      killExit === null && victim.pid() !== undefined,
    ),
    check(
      'no other exit than the one caused',
      exits.length === 1 &&
        exits[0]?.startsWith(`${victim.name} exited (code null, signal SIGKILL)`) === true,
      exits.join('; ') || 'none',
    ),
    check(
      'readiness failed during the database cut',
      notReady.length > 0 && notReady.every(Boolean),
    ),
    check(
      `readiness back within ${RECOVERY_LIMIT_MS / 1000} s of the cut's end`,
      readyAfterMs !== undefined,
    ),
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
    check(
      'no log or command output holds the feed secret, the feed token or the API key',
      secretsSeen.length === 0,
      secretsSeen.join(', ') || undefined,
    ),
  ];
  return {
    title: 'D. the whole chain (sandbox -> receivers -> feed -> consumer, then recovery)',
    seconds: (performance.now() - started) / 1000,
    figures,
    checks,
  };
}

/** Which of `secrets` (by position: feed secret, its key, feed token, API key) any text holds. */
function chainSecretsIn(texts: string[], secrets: string[]): string[] {
  const names = ['the feed secret', "the feed secret's key", 'the feed token', 'the API key'];
  return secrets.flatMap((secret, i) =>
    texts.some((text) => text.includes(secret)) ? [names[i] ?? 'a secret'] : [],
  );
}
