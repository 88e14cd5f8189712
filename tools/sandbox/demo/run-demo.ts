import { NotDone, UsageError } from '../../../src/lib/command-line/errors.ts';
import { sandboxClient, type Call } from '../core/client.ts';
import { SUBSCRIBABLE_EVENTS } from '../validation/subscription-schema.ts';
import { attemptsOf, type AttemptView } from './attempts.ts';
import { sendForgedPayment } from './forged-call.ts';
import { refundsAndReports, type Created, type Delivery } from './day-end.ts';
import { createTally, type Tally } from './tally.ts';

/** Past the receiver's longest key-refetch throttle (SIGNING_KEY_REFRESH_COOLDOWN_MS ≤ 10 s). */
const FORGED_RETRY_DELAY_MS = 11_000;

export interface DemoOptions {
  sandboxUrl: string;
  apiKey: string;
  receiver: string;
  secret: string;
  print: (line: string) => void;
}

/**
 * A day on the platform, against a running receiver: subscriptions, payments, PayTo receipts,
 * rejections, a lost answer (retried), a resend, a forgery, refunds and the reports. No receiver
 * there is a UsageError; an answer not as expected, NotDone (tools/common/run-tool.ts).
 */
export async function runDemo(options: DemoOptions): Promise<void> {
  const { print, receiver } = options;
  const call = sandboxClient(options.sandboxUrl, options.apiKey);
  const tally = createTally(print);
  try {
    await fetch(`${receiver}/healthz`, { signal: AbortSignal.timeout(5000) });
  } catch {
    throw new UsageError(
      `no receiver at ${receiver}; start it first (docs/sandbox.md, "The demo")`,
      '',
    );
  }
  print(`\n1. Subscribing ${receiver}/webhooks/<event> (security token echoed as Authorisation)`);
  for (const eventName of SUBSCRIBABLE_EVENTS) {
    const { body } = await call('POST', '/subscriptions/v1/create', {
      body: {
        eventName,
        targetUrl: `${receiver}/webhooks/${eventName}`,
        subscriptionStatus: 'On',
        securityToken: options.secret,
      },
    });
    tally.note(`  ${eventName}: ${body.status}`);
  }
  print('\n2. The scene: a wallet and a PayID');
  // Unique per run, so a demo on a saved --state finds this run's wallet only.
  const run = Date.now();
  const wallet = (
    await call('POST', '/sandbox/wallets', {
      body: { name: 'Jane Citizen', email: `Jane.${run}@Example.com`, mobile: '0412 345 678' },
    })
  ).body;
  tally.note(`  wallet ${String(wallet.accountNumber)} (pin ${String(wallet.pin)})`);
  const payId = 'shop@sandbox.example';
  await call('POST', '/sandbox/payids', {
    body: { payId, payIdName: 'Sandbox Shop', bankAccountNumber: '419001918' },
  });
  const search = await call(
    'GET',
    `/mWallet/v1/search?clientUniqueIdentifier=JANE.${run}%40example.COM`,
  );
  tally.check('wallet search by e-mail finds it', (search.body.mWallets as unknown[]).length, 1);

  print('\n3. Payments arrive; each is delivered, signed, to the receiver');
  const npp = await deliverEach(call, tally, [
    { event: 'NPPReceivePayment', amount: '125.50', PayId: payId, RemitterName: 'JANE CITIZEN' },
    { event: 'NPPReceivePayment', amount: '42.00', PaymentDescription: 'Invoice 1001, "rush"' },
    { event: 'PayToReceivePayment', amount: '19.99', PayId: payId },
    { event: 'PayToReceivePayment', amount: '250.00', PayId: payId },
    { event: 'InboundDirectCredit', amount: '980.10' },
  ]);
  print('\n4. Rejections: payments that could not be allocated');
  for (const [event, amounts] of [
    ['InboundDirectCreditRejections', ['15.00', '27.35']],
    ['NPPCreditRejections', ['8.80']],
  ] as const) {
    const answer = await call('POST', '/sandbox/rejections?wait=true', {
      body: { event, records: amounts.map((amount) => ({ amount })) },
    });
    await report(call, tally, event, answer.body.deliveries as Delivery[]);
  }
  print(
    '\n5. A lost answer: the platform stops waiting, retries once; the receiver has it already',
  );
  await call('POST', '/sandbox/faults', { body: { kind: 'webhook-timeout', count: 1 } });
  const lost = await call('POST', '/sandbox/payments?wait=true', {
    body: { event: 'NPPReceivePayment', amount: '60.00' },
  });
  for (const d of lost.body.deliveries as Delivery[]) {
    tally.attempts(
      `${d.eventName} Webhookid ${d.webhookId}`,
      await attemptsOf(call, d.webhookId),
      200,
    );
  }
  print('\n6. A redelivery asked for through the resend API (same Webhookid, same bytes)');
  const first = npp[0]?.webhookIds[0] ?? '';
  await call('POST', `/subscriptions/v2/resend/${first}`);
  const resent = await waitForResend(call, first);
  tally.attempts(`Webhookid ${first}`, resent ? [resent] : [], 200);
  print(
    "\n7. A forged payment (signed with a key that is not the platform's), sent straight to the receiver",
  );
  const forge = async (kind: AttemptView['kind']): Promise<AttemptView> => {
    const answer = await sendForgedPayment(receiver, options.secret);
    return { kind, responseCode: answer.status, responseBody: answer.body };
  };
  const forged = [await forge('first')];
  if (forged[0]?.responseCode === 503) {
    // The receiver fetched its key moments ago (it may have just started), so it cannot yet tell
    // this failure from a key rotation: 503, never a final 401 that would lose a genuine
    // delivery. Retried like the platform would, once its key-refetch throttle (at most 10 s) is over.
    print(
      '  503: the key was fetched moments ago, so this could still be a key rotation; retrying after the refetch throttle, as the platform retries',
    );
    await new Promise((resolve) => setTimeout(resolve, FORGED_RETRY_DELAY_MS));
    forged.push(await forge('retry'));
  }
  tally.attempts('forged payment', forged, 401);
  await refundsAndReports(call, tally, npp);
  // Every attempt's answer, the platform's retries included.
  const unanswered = tally.unanswered();
  print(
    `\nReceiver answers: ${[...tally.answers()].map(([code, n]) => `${code} ×${n}`).join(', ')}${unanswered > 0 ? `; attempts without an answer: ${unanswered}` : ''}`,
  );
  print(
    tally.failures() === 0
      ? 'Every answer was as expected.'
      : `${tally.failures()} answer(s) were not as expected.`,
  );
  if (tally.failures() > 0) throw new NotDone();
}

async function deliverEach(
  call: Call,
  tally: Tally,
  payments: Record<string, string>[],
): Promise<Created[]> {
  const created: Created[] = [];
  for (const payment of payments) {
    const { body } = await call('POST', '/sandbox/payments?wait=true', { body: payment });
    created.push(body as unknown as Created);
    await report(call, tally, `${payment.event} ${payment.amount}`, body.deliveries as Delivery[]);
  }
  return created;
}

/** Each notification with every attempt's answer: a first 503 stored on the retry says so. */
async function report(
  call: Call,
  tally: Tally,
  label: string,
  deliveries: Delivery[],
): Promise<void> {
  for (const d of deliveries) {
    tally.attempts(`${label} → Webhookid ${d.webhookId}`, await attemptsOf(call, d.webhookId), 200);
  }
}

async function waitForResend(call: Call, webhookId: string): Promise<AttemptView | undefined> {
  for (let i = 0; i < 100; i += 1) {
    const { body } = await call('GET', `/sandbox/deliveries?webhookId=${webhookId}`);
    const [d] = body.deliveries as (Delivery & { attempts: AttemptView[] })[];
    const resend = d?.attempts.findLast((a) => a.kind === 'resend');
    if (resend && d?.status !== 'Pending') return resend;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}
