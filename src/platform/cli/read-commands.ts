import { readDeliveryReport } from '../client/report-pages.ts';
import { paytoDayStamp } from '../client/requests/payto-report.ts';
import { optional, optionalCount, required, type Command } from './command.ts';

const day = (value: string | undefined, name: string) =>
  value === undefined ? undefined : /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : badDay(name);

function badDay(name: string): never {
  throw new Error(`--${name} must be a Sydney date YYYY-MM-DD`);
}

export const payIdEnquiry: Command = {
  name: 'payid-enquiry',
  summary: 'Details of a PayID this mAccount owns.',
  options: { 'pay-id': { type: 'string', help: 'the PayID (email form), required' } },
  run: ({ client }, values) => client.payIdEnquiry({ payId: required(values, 'pay-id') }),
};

export const walletSearch: Command = {
  name: 'wallet-search',
  summary: 'Wallets registered by this mAccount, all or those matching an identifier.',
  options: {
    identifier: {
      type: 'string',
      help: 'email, mobile, landline or 16-digit wallet number (default: all)',
    },
  },
  run: ({ client }, values) => {
    const identifier = optional(values, 'identifier');
    return client.walletSearch(
      identifier === undefined ? {} : { clientUniqueIdentifier: identifier },
    );
  },
};

export const paytoReport: Command = {
  name: 'payto-report',
  summary: 'PayTo receipts of a Sydney day (or a range of days), one JSON object per row.',
  options: {
    date: { type: 'string', help: 'Sydney date YYYY-MM-DD, required' },
    'end-date': { type: 'string', help: 'last Sydney date of a range (inclusive)' },
    skip: { type: 'string', help: 'rows to skip (default 0)' },
    take: { type: 'string', help: 'rows to take (default 1000; up to 10000 with --end-date)' },
    'account-number': { type: 'string', help: 'payee bank account number' },
    'client-unique-id': { type: 'string', help: 'unique identifier of the account' },
    'pay-id': { type: 'string', help: 'PayID (email form)' },
    'pay-id-name': { type: 'string', help: 'name shown to payers' },
  },
  run: async ({ client }, values) => {
    const date = day(required(values, 'date'), 'date') as string;
    const endDate = day(optional(values, 'end-date'), 'end-date');
    const pick = (name: string) => optional(values, name);
    const answer = await client.paytoReport({
      date: paytoDayStamp(date),
      ...(endDate !== undefined && { endDate: `${endDate.replaceAll('-', '')}235959` }),
      ...optionalFields({
        skip: optionalCount(values, 'skip')?.toString(),
        take: optionalCount(values, 'take')?.toString(),
        accountNumber: pick('account-number'),
        clientUniqueId: pick('client-unique-id'),
        payId: pick('pay-id'),
        payIdName: pick('pay-id-name'),
      }),
    });
    return { envelope: answer.envelope, count: answer.receipts.length, receipts: answer.receipts };
  },
};

export const deliveryReport: Command = {
  name: 'delivery-report',
  summary:
    'Notifications the platform sent on a Sydney day and how each went (Sent / Error); every page unless --skip/--take.',
  options: {
    date: { type: 'string', help: 'Sydney date YYYY-MM-DD, required' },
    skip: { type: 'string', help: 'read one page: rows to skip' },
    take: { type: 'string', help: 'read one page: rows to take (at most 1000)' },
  },
  run: async ({ client, progress }, values) => {
    const date = day(required(values, 'date'), 'date') as string;
    const skip = optionalCount(values, 'skip');
    const take = optionalCount(values, 'take');
    if (skip !== undefined || take !== undefined) {
      return client.deliveryReport({ date, ...optionalFields({ skip, take }) });
    }
    const notifications = await readDeliveryReport(client, date, {
      onPage: (page, rows) => progress(`page ${page}: ${rows} notifications so far`),
    });
    return { date, count: notifications.length, notifications };
  },
};

/** Drops undefined members, for exactOptionalPropertyTypes. */
export function optionalFields<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
