import { describe, expect, it } from 'vitest';
import { startTestSandbox } from './support.ts';

const PAYID = {
  payId: 'Shop@Sandbox.example',
  payIdName: "Jo's Shop & Co.",
  bankAccountNumber: '419001918',
};

describe('PayID enquiry', () => {
  it('when the PayID is registered, then v2 answers it in camelCase (matching case-insensitively)', async () => {
    const { call } = await startTestSandbox();
    expect((await call('POST', '/sandbox/payids', { body: PAYID })).status).toBe(200);
    const answer = await call('POST', '/receivables/v2/payid/payIdEnquiry', {
      body: { payId: 'shop@SANDBOX.example' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'Ok',
      statusDescription: 'Operation completed successfully',
      bankAccountNumber: '419001918',
      payIdName: "Jo's Shop & Co.",
      payIdStatus: 'Enable',
    });
    expect(answer.body.registrationDateTime).toBe(answer.body.lastUpdatedDateTime);
    expect(answer.body.lastResolutionDateTime).toBeUndefined();
    expect(typeof answer.body.durationMs).toBe('number');
  });

  it('when asked on the public v1 path, then the same PayID comes in PascalCase with Status', async () => {
    const { call } = await startTestSandbox();
    await call('POST', '/sandbox/payids', {
      body: { ...PAYID, ledgerAccountNumber: '1234567', ledgerUniqueReference: 'L-1' },
    });
    const answer = await call('POST', '/receivables/v1/payid/payIdEnquiry', {
      body: { payId: PAYID.payId },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      BankAccountNumber: '419001918',
      PayIdName: PAYID.payIdName,
      Status: 'Enable',
      LedgerAccountNumber: '1234567',
      LedgerUniqueReference: 'L-1',
      status: 'Ok',
    });
  });

  it('when a payer has paid to the PayID, then lastResolutionDateTime appears', async () => {
    const { call } = await startTestSandbox();
    await call('POST', '/sandbox/payids', { body: PAYID });
    await call('POST', '/sandbox/payments', {
      body: { event: 'NPPReceivePayment', amount: '1.00', PayId: 'shop@sandbox.example' },
    });
    const answer = await call('POST', '/receivables/v2/payid/payIdEnquiry', {
      body: { payId: PAYID.payId },
    });
    expect(answer.body.lastResolutionDateTime).toEqual(
      expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    );
  });

  it.each([
    ['no payId', {}],
    ['a payId without @', { payId: 'shop.sandbox.example' }],
    ['a local part over 64 characters', { payId: `${'a'.repeat(65)}@x.example` }],
    ['a domain label over 63 characters', { payId: `a@${'b'.repeat(64)}.example` }],
    ['a forbidden character', { payId: 'sh!op@x.example' }],
    ['a number', { payId: 42 }],
  ])('when the body has %s, then 400 naming payId', async (_name, body) => {
    const { call } = await startTestSandbox();
    const answer = await call('POST', '/receivables/v2/payid/payIdEnquiry', { body });
    expect(answer.status).toBe(400);
    expect(answer.body.status).toBe('BadRequest');
    expect(String(answer.body.statusDescription)).toContain('payId');
    expect(answer.body.errorCode).toBeUndefined();
  });

  it("when the PayID is not the caller's, then 400", async () => {
    const { call } = await startTestSandbox();
    const answer = await call('POST', '/receivables/v2/payid/payIdEnquiry', {
      body: { payId: 'other@x.example' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.bankAccountNumber).toBeUndefined();
  });

  it('when the body is not JSON, then 400 in the envelope', async () => {
    const { call } = await startTestSandbox();
    const answer = await call('POST', '/receivables/v2/payid/payIdEnquiry', { body: '{"payId":' });
    expect(answer.status).toBe(400);
    expect(answer.body.status).toBe('BadRequest');
  });
});
