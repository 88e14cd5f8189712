import { describe, expect, it } from 'vitest';
import type { Call } from '../core/client.ts';
import { startTestSandbox } from './support.ts';

async function newWallet(call: Call, body: Record<string, unknown> = {}) {
  const answer = await call('POST', '/sandbox/wallets', {
    body: {
      name: 'Jane Citizen',
      email: 'Jane.Citizen@Example.com',
      mobile: '0412 345 678',
      ...body,
    },
  });
  expect(answer.status).toBe(200);
  return answer.body as { accountNumber: string; pin: string } & Record<string, unknown>;
}

const search = async (call: Call, query = '') => {
  const answer = await call('GET', `/mWallet/v1/search${query}`);
  return { ...answer, wallets: (answer.body.mWallets ?? []) as Record<string, unknown>[] };
};

describe('wallet search', () => {
  it('when a wallet is created, then it has a 16-digit account number, a 4-digit pin and string flags', async () => {
    const { call } = await startTestSandbox();
    const wallet = await newWallet(call);
    expect(wallet.accountNumber).toMatch(/^\d{16}$/);
    expect(wallet.pin).toMatch(/^\d{4}$/);
    expect(wallet).toMatchObject({
      email: 'jane.citizen@example.com',
      mobile: '0412345678',
      isOnHold: 'false',
      isRegistered: 'true',
    });
  });

  it('when searched by upper-case email, spaced mobile, dashed account number or `identifier`, then the wallet is found', async () => {
    const { call } = await startTestSandbox();
    const wallet = await newWallet(call);
    await newWallet(call, { email: 'other@example.com', mobile: '0499999999' });
    const dashed = wallet.accountNumber.replace(/(\d{4})(?=\d)/g, '$1-');
    for (const query of [
      '?clientUniqueIdentifier=JANE.CITIZEN%40EXAMPLE.COM',
      '?clientUniqueIdentifier=0412%20345%20678',
      `?clientUniqueIdentifier=${dashed}`,
      '?identifier=jane.citizen%40example.com',
    ]) {
      const { status, wallets } = await search(call, query);
      expect(status, query).toBe(200);
      expect(
        wallets.map((w) => w.accountNumber),
        query,
      ).toEqual([wallet.accountNumber]);
    }
  });

  it('when no identifier is given, then every wallet of the mAccount is listed; an unknown one lists none', async () => {
    const { call } = await startTestSandbox();
    await newWallet(call);
    await newWallet(call, { email: 'b@example.com', mobile: '0400000000' });
    expect((await search(call)).wallets).toHaveLength(2);
    expect(
      (await search(call, '?clientUniqueIdentifier=nobody%40example.com')).wallets,
    ).toHaveLength(0);
  });

  it('when the identifier has a forbidden character or is too long, then 400 ValidationError', async () => {
    const { call } = await startTestSandbox();
    for (const query of [
      '?clientUniqueIdentifier=a%3Bb',
      `?clientUniqueIdentifier=${'a'.repeat(301)}`,
    ]) {
      const { status, body } = await search(call, query);
      expect(status).toBe(400);
      expect(body).toMatchObject({ status: 'BadRequest', errorCode: 'ValidationError' });
      expect(body.mWallets).toBeUndefined();
    }
  });
});

describe('wallet update', () => {
  it('when phone and Email are updated, then they are normalised and show in the next search', async () => {
    const { call } = await startTestSandbox();
    const { accountNumber, pin } = await newWallet(call);
    const answer = await call('POST', '/mWallet/v1/update', {
      body: {
        accountNumber,
        pin,
        name: 'Jane Q. Citizen',
        nickName: '',
        phone: '(02) 9999-0000',
        Email: 'New@Example.COM',
        ABN: '51 824 753 556',
        options: [{ key: 'MobileForSms', value: '0412345678' }],
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.accountNumber).toBe(accountNumber);
    const [found] = (await search(call, `?clientUniqueIdentifier=${accountNumber}`)).wallets;
    expect(found).toMatchObject({
      name: 'Jane Q. Citizen',
      nickName: '',
      contactPhone: '0299990000',
      email: 'new@example.com',
      ABN: '51824753556',
      options: [{ key: 'MobileForSms', value: '0412345678' }],
    });
    // Contact details are not authentication details: the old email still finds it.
    expect(
      (await search(call, '?clientUniqueIdentifier=jane.citizen%40example.com')).wallets,
    ).toHaveLength(1);
  });

  it('when the public spellings email, abn and a numeric pin are used, then they are accepted', async () => {
    const { call } = await startTestSandbox();
    const { accountNumber } = await newWallet(call, { pin: '0042' });
    const answer = await call('POST', '/mWallet/v1/update', {
      body: { accountNumber, pin: 42, phone: '0411111111', email: 'X@Y.com', abn: '51824753556' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.mWallet as Record<string, unknown>).toMatchObject({
      email: 'x@y.com',
      ABN: '51824753556',
    });
  });

  it('when an option is sent with an empty value, then it is removed', async () => {
    const { call } = await startTestSandbox();
    const { accountNumber, pin } = await newWallet(call);
    await call('POST', '/mWallet/v1/update', {
      body: { accountNumber, pin, options: [{ key: 'SendDailyStatement', value: 'true' }] },
    });
    const answer = await call('POST', '/mWallet/v1/update', {
      body: { accountNumber, pin, options: [{ key: 'SendDailyStatement', value: '' }] },
    });
    expect((answer.body.mWallet as { options: unknown[] }).options).toEqual([]);
  });

  it.each([
    ['a 15-digit account number', { accountNumber: '123456789012345' }, 'accountNumber'],
    ['a 3-digit pin', { pin: '123' }, 'pin'],
    ['a 5-digit pin', { pin: '12345' }, 'pin'],
    ['phone without Email', { phone: '0412345678' }, 'phone and Email'],
    ['Email without phone', { Email: 'a@b.com' }, 'phone and Email'],
    ['an Email without @', { phone: '0412345678', Email: 'ab.com' }, 'Email'],
    ['a phone not starting with 0', { phone: '1412345678', Email: 'a@b.com' }, 'phone'],
    ['a name over 100 characters', { name: 'a'.repeat(101) }, 'name'],
    ['a nickName with a forbidden character', { nickName: 'J@ne' }, 'nickName'],
    ['an ABN of 10 digits', { ABN: '5182475355' }, 'ABN'],
    ['an option key with a space', { options: [{ key: 'a b', value: 'x' }] }, 'options.0.key'],
    [
      'an option value over 200 characters',
      { options: [{ key: 'k', value: 'v'.repeat(201) }] },
      'options.0.value',
    ],
  ])(
    'when the body has %s, then 400 ValidationError naming it, and nothing changes',
    async (_name, change, named) => {
      const { call } = await startTestSandbox();
      const wallet = await newWallet(call);
      const before = (await search(call)).wallets;
      const answer = await call('POST', '/mWallet/v1/update', {
        body: { accountNumber: wallet.accountNumber, pin: wallet.pin, ...change },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ status: 'BadRequest', errorCode: 'ValidationError' });
      expect(String(answer.body.statusDescription)).toContain(named);
      expect((await search(call)).wallets).toEqual(before);
    },
  );

  it('when the pin is wrong or the wallet unknown, then the same 400 and nothing changes', async () => {
    const { call } = await startTestSandbox();
    const { accountNumber, pin } = await newWallet(call);
    const wrongPin = String((Number(pin) + 1) % 10_000).padStart(4, '0');
    const wrong = await call('POST', '/mWallet/v1/update', {
      body: { accountNumber, pin: wrongPin, name: 'Mallory' },
    });
    const unknown = await call('POST', '/mWallet/v1/update', {
      body: { accountNumber: '1'.repeat(16), pin, name: 'Mallory' },
    });
    expect(wrong.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(wrong.body.statusDescription).toBe(unknown.body.statusDescription);
    expect((await search(call)).wallets[0]?.name).toBe('Jane Citizen');
  });

  it('when the wallet is on hold, then the update is refused with CustomerIsOnHold', async () => {
    const { call } = await startTestSandbox();
    const { accountNumber, pin } = await newWallet(call, { isOnHold: true });
    const answer = await call('POST', '/mWallet/v1/update', {
      body: { accountNumber, pin, name: 'Someone Else' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.status).toBe('CustomerIsOnHold');
    expect((await search(call)).wallets[0]?.name).toBe('Jane Citizen');
  });
});
