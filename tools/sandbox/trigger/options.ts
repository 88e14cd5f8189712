import type {
  OptionDescription,
  OptionValues,
} from '../../../src/lib/command-line/command-description.ts';
import { UsageError } from '../../../src/lib/command-line/errors.ts';
import { helpRows } from '../../../src/lib/command-line/help-rows.ts';
import { AMOUNT_PATTERN } from '../core/money.ts';
import { TRIGGERS, triggerNamed, type TriggerChoices } from './events.ts';

export const TRIGGER_USAGE = `usage: npm run sandbox -- trigger <event> [options]
  Makes a running sandbox (npm run sandbox) do one thing and deliver it, signed, to every
  subscription of its event; prints what the receiver answered (status, body, Webhookid).
  <event>:
${helpRows(
  TRIGGERS.map((t) => [t.name, `${t.about} (${t.event})`]),
  24,
)}
  (or the platform's event name: NPPReceivePayment, PayToReceivePayment, …)
  --amount <decimal>        e.g. 12.34 (default 12.34)
  --payer <name>            the remitter's name (RemitterName; remitterName in a rejection)
  --reference <text>        PaymentDescription (LodgementRef, lodgementRef for direct entry)
  --reason <text>           a rejection's reason
  --refund-amount <decimal> refund-settlement: how much went back (default: the whole amount)
  --sandbox <url>           the sandbox (default http://SANDBOX_HOST:SANDBOX_PORT, i.e.
                            http://127.0.0.1:8787)
  --help                    this text
Exit code 0 when every delivery was answered 200, 1 when one was not (the sandbox retries it
once, as the platform does) or nothing is subscribed to the event, 2 on bad usage or no sandbox.`;

export const TRIGGER_OPTIONS: readonly OptionDescription[] = [
  '--amount <decimal>',
  '--payer <name>',
  '--reference <text>',
  '--reason <text>',
  '--refund-amount <decimal>',
  '--sandbox <url>',
].map((flags) => ({ flags }));

export interface TriggerOptions {
  trigger: NonNullable<ReturnType<typeof triggerNamed>>;
  choices: TriggerChoices;
  sandboxUrl: string;
}

const DEFAULT_AMOUNT = '12.34';

/** `trigger <event>`'s words and the environment, read; a bad one is a UsageError naming it. */
export function triggerOptions(
  name: string,
  values: OptionValues,
  env: NodeJS.ProcessEnv,
): TriggerOptions {
  const trigger = triggerNamed(name);
  if (!trigger)
    throw new UsageError(
      `unknown event: ${name} (one of ${TRIGGERS.map((t) => t.name).join(', ')})`,
    );
  const text = (key: string) => values[key] as string | undefined;
  for (const [key, flag] of [
    ['amount', '--amount'],
    ['refundAmount', '--refund-amount'],
  ] as const) {
    const value = text(key);
    if (value !== undefined && !AMOUNT_PATTERN.test(value))
      throw new UsageError(`${flag}: not an amount with at most 2 decimals: ${value}`);
  }
  if (text('refundAmount') !== undefined && trigger.name !== 'refund-settlement')
    throw new UsageError('--refund-amount is for refund-settlement only');
  const sandboxUrl = (
    text('sandbox') ?? `http://${env.SANDBOX_HOST ?? '127.0.0.1'}:${env.SANDBOX_PORT ?? '8787'}`
  ).replace(/\/+$/, '');
  if (!/^https?:\/\/\S+$/.test(sandboxUrl))
    throw new UsageError(`--sandbox: not an http(s) URL: ${sandboxUrl}`);
  const choices: TriggerChoices = { amount: text('amount') ?? DEFAULT_AMOUNT };
  for (const key of ['payer', 'reference', 'reason', 'refundAmount'] as const) {
    const value = text(key);
    if (value !== undefined) choices[key] = value;
  }
  return { trigger, choices, sandboxUrl };
}
