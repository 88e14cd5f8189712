import { NotDone, UsageError } from '../../../src/lib/command-line/errors.ts';
import { sandboxClient, type Answer, type Call } from '../core/client.ts';
import type { Attempt } from '../state/types.ts';
import type { TriggerOptions } from './options.ts';

/** How long the first answer of each delivery is waited for: the sandbox's own timeout and some. */
const DEFAULT_WAIT_MS = 15_000;
const POLL_MS = 100;

interface Delivery {
  webhookId: string;
  url: string;
  attempts: Attempt[];
}

/**
 * `npm run sandbox -- trigger <event>`: asks the sandbox at `sandboxUrl` to make one thing
 * happen (its control routes), then prints the first answer of each delivery it sent, as the
 * receiver gave it. The sandbox goes on as it always does (one retry of a refused delivery,
 * SANDBOX_RETRY_DELAY_MS later: its own log prints that answer). No sandbox there, or one that
 * refuses the values: UsageError; nothing subscribed, or an answer that is not 200: NotDone.
 */
export async function runTrigger(
  options: TriggerOptions & { waitMs?: number },
  print: (line: string) => void,
): Promise<void> {
  const { trigger, sandboxUrl } = options;
  const call = sandboxClient(sandboxUrl, '');
  let made: Answer;
  try {
    made = await call('POST', trigger.path, {
      body: trigger.body(options.choices),
      auth: 'none',
      timeoutMs: 10_000,
    });
  } catch {
    throw new UsageError(
      `no sandbox at ${sandboxUrl}: start one with npm run sandbox (or give --sandbox <url>)`,
      '',
    );
  }
  if (made.status !== 200) {
    const problems = (made.body.problems as string[] | undefined) ?? [];
    throw new UsageError(
      `the sandbox at ${sandboxUrl} refused it (HTTP ${made.status}): ${[
        String(made.body.statusDescription ?? made.text.slice(0, 200)),
        ...problems,
      ].join('; ')}`,
      '',
    );
  }
  print(describeMade(trigger.event, made.body));
  const webhookIds = (made.body.webhookIds as string[] | undefined) ?? [];
  if (webhookIds.length === 0) {
    throw new NotDone(
      `nothing is subscribed to ${trigger.event} on ${sandboxUrl}, so nothing was delivered: ` +
        `subscribe the receiver first (docs/sandbox.md, "A developer's loop")`,
    );
  }
  let refused = 0;
  for (const webhookId of webhookIds) {
    const delivery = await firstAnswer(call, webhookId, options.waitMs ?? DEFAULT_WAIT_MS);
    const attempt = delivery.attempts[0];
    print(`→ ${delivery.url}  Webhookid ${webhookId}`);
    print(`  ${answerLine(attempt)}`);
    if (attempt?.responseCode !== 200) refused += 1;
  }
  if (refused > 0) {
    throw new NotDone(
      `${refused} of ${webhookIds.length} deliveries not answered 200; the sandbox retries each ` +
        'once, SANDBOX_RETRY_DELAY_MS later, as the platform does (its log prints the answer)',
    );
  }
}

/** One line about what the sandbox made: the payment (and what went back) or the rejection. */
function describeMade(event: string, body: Answer['body']): string {
  const payment = body.payment as Record<string, unknown> | undefined;
  if (payment) {
    const record =
      (payment.DirectCreditDetails as Record<string, unknown>[] | undefined)?.[0] ?? payment;
    const refund = payment.RefundDetails as Record<string, unknown> | undefined;
    const back =
      refund && refund.RefundId !== ''
        ? `, ${String(refund.RefundAmount)} refunded (RefundId ${String(refund.RefundId)})`
        : '';
    return `${event} ${String(record.TransactionId)}: ${String(record.Amount)} from ${String(record.RemitterName)}${back}`;
  }
  const records = (body.records as Record<string, unknown>[] | undefined) ?? [];
  const first = records[0] ?? {};
  return `${event} record ${String(first.id)}: ${String(first.amount)} from ${String(first.remitterName)}, ${String(first.reason)}`;
}

/** The receiver's answer as a line: status, the start of its body, how long it took. */
function answerLine(attempt: Attempt | undefined): string {
  if (!attempt) return 'no answer yet (the sandbox is still trying)';
  const status = attempt.responseCode ?? `no answer (${attempt.error ?? 'unknown'})`;
  const body = attempt.responseBody ? ` ${attempt.responseBody.slice(0, 300)}` : '';
  return `${status}${body}  (${attempt.durationMs} ms)`;
}

/** The delivery once its first attempt is over (or as it is after `waitMs`). */
async function firstAnswer(call: Call, webhookId: string, waitMs: number): Promise<Delivery> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const answer = await call('GET', `/sandbox/deliveries?webhookId=${webhookId}`, {
      auth: 'none',
      timeoutMs: 10_000,
    });
    const deliveries = (answer.body.deliveries as Delivery[] | undefined) ?? [];
    const delivery = deliveries[0] ?? { webhookId, url: '?', attempts: [] };
    if (delivery.attempts.length > 0 || Date.now() >= deadline) return delivery;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
