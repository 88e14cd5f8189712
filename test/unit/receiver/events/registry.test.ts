import { describe, expect, it } from 'vitest';
import { findEventModel } from '../../../../src/receiver/events/registry.ts';
import { isWellFormedEventName } from '../../../../src/receiver/events/event-name.ts';

describe('findEventModel', () => {
  it.each([
    ['NPPReceivePayment', 'NPPReceivePayment'],
    ['nppreceivepayment', 'NPPReceivePayment'],
    ['NppReceivePayment', 'NPPReceivePayment'],
    ['PayToReceivePayment', 'PayToReceivePayment'],
    ['paytoreceivepayment', 'PayToReceivePayment'],
    ['InboundDirectCreditRejections', 'InboundDirectCreditRejections'],
    ['INBOUNDDIRECTCREDITREJECTIONS', 'InboundDirectCreditRejections'],
    ['NPPCreditRejections', 'NPPCreditRejections'],
    ['NppCreditRejections', 'NPPCreditRejections'],
    ['InboundDirectCredit', 'InboundDirectCredit'],
    ['inbounddirectcredit', 'InboundDirectCredit'],
  ])('when the event name is %j, then the model is the canonical %j', (name, canonical) => {
    expect(findEventModel(name)?.name).toBe(canonical);
  });

  it.each(['NppReturn', 'InboundDirectCredits', 'NPPReceivePayments', 'PayToReceivePayments', ''])(
    'when the event %j is not modelled, then there is no model',
    (name) => {
      expect(findEventModel(name)).toBeUndefined();
    },
  );

  it.each([' NPPReceivePayment', 'NPPReceivePayment/', 'NPP-Receive-Payment'])(
    'when the name %j is not well formed, then there is no model',
    (name) => {
      expect(findEventModel(name)).toBeUndefined();
    },
  );

  it.each(['NPPRece\u0130vePayment', 'NPPReceivePaymen\u212A'])(
    'when a name has a non-ASCII letter (%j), even one that case-folds to ASCII, then it is neither well formed nor found',
    (name) => {
      // U+0130 (İ) and U+212A (Kelvin sign) fold to "i" and "k" under Unicode case-insensitivity.
      expect(isWellFormedEventName(name)).toBe(false);
      expect(findEventModel(name)).toBeUndefined();
    },
  );

  it('when the same event is found under two spellings, then it is the same model', () => {
    expect(findEventModel('nppcreditrejections')).toBe(findEventModel('NPPCreditRejections'));
  });

  it('when a model is found, then its parse turns a body into rows', () => {
    expect(
      findEventModel('NPPReceivePayment')?.parse({ TransactionId: 'N1', Amount: '5.00' }),
    ).toMatchObject({
      ok: true,
      typed: { kind: 'npp-payment', rows: [{ transactionId: 'N1', amount: '5' }] },
    });
  });
});

describe('isWellFormedEventName', () => {
  it.each(['NPPReceivePayment', 'A', 'Event2', 'x'.repeat(64)])(
    'when the name is %j, then it is well formed',
    (name) => {
      expect(isWellFormedEventName(name)).toBe(true);
    },
  );

  it.each([
    '',
    'x'.repeat(65),
    'NPP Receive',
    'NPP_Receive',
    'NPP-Receive',
    'Événement',
    '../etc',
    'a\n',
  ])('when the name is %j, then it is not well formed', (name) => {
    expect(isWellFormedEventName(name)).toBe(false);
  });
});
