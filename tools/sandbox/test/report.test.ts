import { describe, expect, it } from 'vitest';
import type { Call } from '../core/client.ts';
import { startTestSandbox } from './support.ts';

const REPORT = '/paytoreceivables/v1/report';

async function payTo(call: Call, extra: Record<string, string> = {}) {
  const answer = await call('POST', '/sandbox/payments', {
    body: { event: 'PayToReceivePayment', amount: '10.00', ...extra },
  });
  expect(answer.status).toBe(200);
  return answer.body.payment as Record<string, string>;
}

const rows = async (call: Call, path: string) => {
  const answer = await call('GET', path);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.ndeFileDetails as string[];
};

describe('PayTo report', () => {
  it('when PayTo receipts and an NPP payment exist, then the day lists only the PayTo ones, oldest first', async () => {
    const { call } = await startTestSandbox();
    const a = await payTo(call, { DateTime: '2024-03-05T09:00:00' });
    const b = await payTo(call, { DateTime: '2024-03-05T08:00:00' });
    await call('POST', '/sandbox/payments', {
      body: { event: 'NPPReceivePayment', amount: '1.00', DateTime: '2024-03-05T10:00:00' },
    });
    await payTo(call, { DateTime: '2024-03-06T00:00:00' });
    const day = await rows(call, `${REPORT}/20240305000000`);
    expect(day.map((row) => row.split(',')[0])).toEqual([b.TransactionId, a.TransactionId]);
    expect(day[0]?.split(',')).toHaveLength(32);
  });

  it('when endDate is given, then the range is inclusive across days', async () => {
    const { call } = await startTestSandbox();
    await payTo(call, { DateTime: '2024-03-05T23:59:59' });
    await payTo(call, { DateTime: '2024-03-06T00:00:00' });
    await payTo(call, { DateTime: '2024-03-06T12:00:01' });
    expect(await rows(call, `${REPORT}/20240305120000?endDate=20240306120000`)).toHaveLength(2);
  });

  it('when requested twice on the current Sydney day, then the later report holds the earlier rows and the new ones', async () => {
    const { call } = await startTestSandbox();
    const first = await payTo(call);
    const today = `${first.DateTime!.slice(0, 10).replaceAll('-', '')}000000`;
    const before = await rows(call, `${REPORT}/${today}`);
    await payTo(call);
    const after = await rows(call, `${REPORT}/${today}`);
    expect(before).toHaveLength(1);
    expect(after).toHaveLength(2);
    expect(after).toEqual(expect.arrayContaining(before));
  });

  it('when paged with skip and take, then pages neither repeat nor skip a row', async () => {
    const { call } = await startTestSandbox();
    for (let i = 0; i < 5; i += 1) await payTo(call, { DateTime: `2024-03-05T09:00:0${i}` });
    const all = await rows(call, `${REPORT}/20240305000000`);
    const pages = [
      ...(await rows(call, `${REPORT}/20240305000000?skip=0&take=2`)),
      ...(await rows(call, `${REPORT}/20240305000000?skip=2&take=2`)),
      ...(await rows(call, `${REPORT}/20240305000000?skip=4&take=2`)),
    ];
    expect(pages).toEqual(all);
    expect(all).toHaveLength(5);
  });

  it('when a field holds a comma or a quote, then the row quotes it per RFC 4180', async () => {
    const { call } = await startTestSandbox();
    await payTo(call, {
      DateTime: '2024-03-05T09:00:00',
      PaymentDescription: 'Invoice 7, "rush"',
      RemitterName: 'Plain',
    });
    const [row] = await rows(call, `${REPORT}/20240305000000`);
    expect(row).toContain(',"Invoice 7, ""rush""",Plain,');
  });

  it('when the caller accepts text/csv, then the answer is CSV with the header row', async () => {
    const { call } = await startTestSandbox();
    const payment = await payTo(call, { DateTime: '2024-03-05T09:00:00' });
    const answer = await call('GET', `${REPORT}/20240305000000`, {
      headers: { Accept: 'text/csv' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/csv');
    const lines = answer.text.split('\r\n');
    expect(lines[0]).toMatch(
      /^Transaction ID,Batch Id,DateTime,BSB,.*,NPPInstructionId,ReceiptNumber$/,
    );
    expect(lines[1]?.startsWith(`${payment.TransactionId},`)).toBe(true);
  });

  it('when filtered by payId or transactionType, then only matching rows come', async () => {
    const { call } = await startTestSandbox();
    await payTo(call, { DateTime: '2024-03-05T09:00:00', PayId: 'a@x.example' });
    await payTo(call, { DateTime: '2024-03-05T09:00:01', PayId: 'b@x.example' });
    expect(await rows(call, `${REPORT}/20240305000000?payId=A%40x.example`)).toHaveLength(1);
    expect(await rows(call, `${REPORT}/20240305000000?transactionType=DE`)).toHaveLength(0);
  });

  it.each([
    ['a 13-digit date', '2024030500000', '', 'date'],
    ['a date that does not exist', '20240230000000', '', 'date'],
    ['a 25th hour', '20240305250000', '', 'date'],
    ['a malformed endDate', '20240305000000', '?endDate=2024-03-06', 'endDate'],
    ['an endDate before date', '20240305000000', '?endDate=20240304000000', 'endDate'],
    [
      'take over 10000 with endDate',
      '20240305000000',
      '?endDate=20240306000000&take=10001',
      'take',
    ],
    ['a 6-digit take', '20240305000000', '?take=100000', 'take'],
    ['a 10-digit skip', '20240305000000', '?skip=1234567890', 'skip'],
    ['an accountNumber with letters', '20240305000000', '?accountNumber=12ab', 'accountNumber'],
    ['a clientUniqueId with a space', '20240305000000', '?clientUniqueId=a%20b', 'clientUniqueId'],
    ['a payIdName with a forbidden character', '20240305000000', '?payIdName=a%3Bb', 'payIdName'],
  ])(
    'when the request has %s, then 400 with an errors array naming it',
    async (_name, date, query, named) => {
      const { call } = await startTestSandbox();
      const answer = await call('GET', `${REPORT}/${date}${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body.status).toBe('BadRequest');
      expect(answer.body.errors).toEqual(expect.arrayContaining([expect.stringContaining(named)]));
      expect(answer.body.ndeFileDetails).toBeUndefined();
    },
  );

  it('when take is over 10000 without endDate, then it is allowed', async () => {
    const { call } = await startTestSandbox();
    expect((await call('GET', `${REPORT}/20240305000000?take=20000`)).status).toBe(200);
  });
});
