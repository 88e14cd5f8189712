import { describe, expect, it } from 'vitest';
import { cleanReplayExpectation } from '../../../src/capture/clean-replay-expectation.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
const payment = Buffer.from(
  '{"TransactionId":"T1","Amount":"10.0000","DateTime":"2023-08-11T14:19:16"}',
);
const rows = (typed: Record<string, number>) => ({
  webhook_deliveries: 1,
  npp_payments: 0,
  payto_payments: 0,
  credit_rejections: 0,
  conflicts: 0,
  quarantined_deliveries: 0,
  ...typed,
});

describe('cleanReplayExpectation', () => {
  it('when a live duplicate is recorded, then the file expects what a replay alone gives: stored, with its typed rows', () => {
    expect(
      cleanReplayExpectation({
        eventName: 'NPPReceivePayment',
        rawBody: payment,
        headers: JSON_TYPE,
        outcome: 'duplicate',
      }),
    ).toEqual({
      status: 200,
      outcome: 'stored',
      modelled: true,
      rows: rows({ npp_payments: 1 }),
    });
  });

  it('when a rejection batch repeats an id with another amount, then a replay alone writes that record once and one conflict', () => {
    const batch = Buffer.from('[{"id":1,"amount":1},{"id":"1","amount":2},{"id":2,"amount":3}]');
    const expected = cleanReplayExpectation({
      eventName: 'InboundDirectCreditRejections',
      rawBody: batch,
      headers: JSON_TYPE,
      outcome: 'stored',
    });
    expect(expected.rows).toEqual(rows({ credit_rejections: 2, conflicts: 1 }));
  });

  it('when the event is not modelled, then stored with modelled false and no typed rows', () => {
    expect(
      cleanReplayExpectation({
        eventName: 'NppReturn',
        rawBody: Buffer.from('{}'),
        headers: JSON_TYPE,
        outcome: 'stored',
      }),
    ).toEqual({
      status: 200,
      outcome: 'stored',
      modelled: false,
      rows: rows({}),
    });
  });

  it('when a duplicate body would not pass the body check on its own, then quarantined with the reasons', () => {
    const expected = cleanReplayExpectation({
      eventName: 'NPPReceivePayment',
      rawBody: payment,
      headers: { 'content-type': 'text/plain' },
      outcome: 'duplicate',
    });
    expect(expected).toEqual({
      status: 400,
      outcome: 'quarantined',
      errorPaths: ['headers.Content-Type'],
      rows: {
        webhook_deliveries: 0,
        npp_payments: 0,
        payto_payments: 0,
        credit_rejections: 0,
        conflicts: 0,
        quarantined_deliveries: 1,
      },
    });
  });

  it('when a live quarantine is recorded, then its error paths are kept', () => {
    expect(
      cleanReplayExpectation({
        eventName: 'NPPReceivePayment',
        rawBody: payment,
        headers: JSON_TYPE,
        outcome: 'quarantined',
        errorPaths: ['headers.Webhookid'],
      }),
    ).toMatchObject({
      status: 400,
      errorPaths: ['headers.Webhookid'],
    });
  });
});
