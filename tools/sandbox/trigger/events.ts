/**
 * What `npm run sandbox -- trigger <event>` can make happen, and the control call that does it
 * (docs/sandbox.md, "Control routes"). Each is named the short way (`npp-payment`) or by the
 * platform's event name (`NPPReceivePayment`); a refund settlement is an NPPReceivePayment whose
 * RefundDetails say how much of it went straight back to the payer.
 */

export interface TriggerChoices {
  amount: string;
  payer?: string;
  reference?: string;
  reason?: string;
  /** refund-settlement: how much went back (default: all of it). */
  refundAmount?: string;
}

interface Trigger {
  name: string;
  /** The platform's event the receiver is sent. */
  event: string;
  about: string;
  /** The control route (POST) and its body. */
  path: '/sandbox/payments' | '/sandbox/rejections';
  body(choices: TriggerChoices): Record<string, unknown>;
}

/** Only what was given: an option left out leaves the sandbox's sample value. */
const given = (fields: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

const payment = (event: string, choices: TriggerChoices) => ({
  event,
  amount: choices.amount,
  ...given({ RemitterName: choices.payer, PaymentDescription: choices.reference }),
});

const rejection = (event: string, choices: TriggerChoices) => ({
  event,
  records: [
    {
      amount: choices.amount,
      ...given({
        remitterName: choices.payer,
        lodgementRef: choices.reference,
        reason: choices.reason,
      }),
    },
  ],
});

export const TRIGGERS: readonly Trigger[] = [
  {
    name: 'npp-payment',
    event: 'NPPReceivePayment',
    about: 'an NPP payment received',
    path: '/sandbox/payments',
    body: (c) => payment('NPPReceivePayment', c),
  },
  {
    name: 'payto-receipt',
    event: 'PayToReceivePayment',
    about: 'a PayTo payment received',
    path: '/sandbox/payments',
    body: (c) => payment('PayToReceivePayment', c),
  },
  {
    name: 'direct-credit',
    event: 'InboundDirectCredit',
    about: 'a direct-entry credit (a batch of one record)',
    path: '/sandbox/payments',
    body: (c) => ({
      event: 'InboundDirectCredit',
      amount: c.amount,
      ...given({ RemitterName: c.payer, LodgementRef: c.reference }),
    }),
  },
  {
    name: 'npp-rejection',
    event: 'NPPCreditRejections',
    about: 'an NPP credit that could not be allocated',
    path: '/sandbox/rejections',
    body: (c) => rejection('NPPCreditRejections', c),
  },
  {
    name: 'direct-credit-rejection',
    event: 'InboundDirectCreditRejections',
    about: 'a direct-entry credit that could not be allocated',
    path: '/sandbox/rejections',
    body: (c) => rejection('InboundDirectCreditRejections', c),
  },
  {
    name: 'refund-settlement',
    event: 'NPPReceivePayment',
    about: 'an NPP payment of which --refund-amount (default all) went back',
    path: '/sandbox/payments',
    body: (c) => ({
      ...payment('NPPReceivePayment', c),
      refundAmount: c.refundAmount ?? c.amount,
    }),
  },
];

/** The trigger `name` names: its short name, or a platform event's (its plain trigger). */
export function triggerNamed(name: string): Trigger | undefined {
  const lower = name.toLowerCase();
  return (
    TRIGGERS.find((t) => t.name === lower) ??
    TRIGGERS.find((t) => t.event.toLowerCase() === lower && t.name !== 'refund-settlement')
  );
}
