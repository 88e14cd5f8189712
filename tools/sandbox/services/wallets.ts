import { randomInt } from 'node:crypto';
import { sameSecret } from '../core/credentials.ts';
import type { SandboxDeps } from './deps.ts';
import { fromCents } from '../core/money.ts';
import { sydneyLocalIso } from '../../../src/lib/sydney-time.ts';
import type { Fields, Wallet } from '../state/types.ts';
import { digitsOnly } from '../validation/patterns.ts';
import type { WalletUpdate } from '../validation/wallet-schemas.ts';

const MAXIMUM_BALANCE_CENTS = 1_000_000;

export interface NewWallet {
  name: string;
  email: string;
  mobile: string;
  nickName?: string | undefined;
  landLine?: string | undefined;
  pin?: string | undefined;
  balanceCents: number;
  flags: Partial<Record<'isOnHold' | 'isClosed' | 'isStolen' | 'isRegistered', boolean>>;
}

/** A wallet with a fresh 16-digit account number and a 4-digit pin (chosen or random). */
export function createWallet(
  deps: Pick<SandboxDeps, 'store' | 'clock' | 'credentials'>,
  input: NewWallet,
): Wallet | undefined {
  const { store, clock, credentials } = deps;
  let accountNumber: string;
  do {
    // randomInt's range is below 2^48, so two halves of 8 and 7 digits.
    accountNumber = `9${String(randomInt(10 ** 8)).padStart(8, '0')}${String(randomInt(10 ** 7)).padStart(7, '0')}`;
  } while (store.state.wallets.some((w) => w.accountNumber === accountNumber));
  const text = (flag: boolean | undefined, fallback: boolean) => String(flag ?? fallback);
  const wallet: Wallet = {
    accountNumber,
    pin: input.pin ?? String(randomInt(10_000)).padStart(4, '0'),
    createdAtMs: clock.now().getTime(),
    balanceCents: input.balanceCents,
    details: {
      name: input.name,
      nickName: input.nickName ?? '',
      email: input.email,
      mobile: input.mobile,
      lastTransactionDate: '',
      contactPhone: input.mobile,
      authenticationEmail: input.email,
      authenticationMobile: input.mobile,
      authenticationLandLine: input.landLine ?? null,
      registeredByMAccountNumber: credentials.mAccount,
      isOnHold: text(input.flags.isOnHold, false),
      isClosed: text(input.flags.isClosed, false),
      isStolen: text(input.flags.isStolen, false),
      isRegistered: text(input.flags.isRegistered, true),
      options: [],
      ABN: '',
    },
  };
  return store.add('wallets', wallet) ? wallet : undefined;
}

/** mWalletDetails as search and update answer it. */
export function walletDetails(wallet: Wallet): Fields {
  const amount = (cents: number) => Number(fromCents(cents));
  return {
    createdDateTime: sydneyLocalIso(wallet.createdAtMs),
    accountNumber: wallet.accountNumber,
    ...wallet.details,
    financials: {
      actualBalance: amount(wallet.balanceCents),
      availableSpend: amount(Math.max(0, wallet.balanceCents)),
      availableLoad: amount(Math.max(0, MAXIMUM_BALANCE_CENTS - wallet.balanceCents)),
      maximumBalance: amount(MAXIMUM_BALANCE_CENTS),
    },
  };
}

/**
 * Search rules: no identifier lists every wallet of the mAccount; an email (lower-cased)
 * matches the authentication email; anything else is reduced to digits and matches the account
 * number, authentication mobile or landline.
 */
export function searchWallets(
  wallets: readonly Wallet[],
  identifier: string | undefined,
): Wallet[] {
  if (identifier === undefined) return [...wallets];
  if (identifier.includes('@')) {
    const email = identifier.trim().toLowerCase();
    return wallets.filter((w) => w.details.authenticationEmail === email);
  }
  const digits = digitsOnly(identifier);
  if (digits === '') return [];
  return wallets.filter(
    (w) =>
      w.accountNumber === digits ||
      w.details.authenticationMobile === digits ||
      w.details.authenticationLandLine === digits,
  );
}

export type UpdateOutcome =
  { ok: true; wallet: Wallet } | { ok: false; status?: string; description: string };

const REFUSING_FLAGS = [
  ['isClosed', 'CustomerIsClosed'],
  ['isStolen', 'CustomerIsStolen'],
  ['isOnHold', 'CustomerIsOnHold'],
] as const;

/** The update: pin checked in constant time; the same answer for an unknown wallet and a wrong pin. */
export function updateWallet(
  deps: Pick<SandboxDeps, 'store'>,
  update: WalletUpdate,
): UpdateOutcome {
  const wallet = deps.store.state.wallets.find((w) => w.accountNumber === update.accountNumber);
  const pinMatches = sameSecret(update.pin, wallet?.pin ?? '----');
  if (!wallet || !pinMatches)
    return { ok: false, description: 'Wallet not found or pin does not match' };
  for (const [flag, status] of REFUSING_FLAGS) {
    if (wallet.details[flag] === 'true')
      return { ok: false, status, description: `The wallet is ${flag.slice(2).toLowerCase()}` };
  }
  const d = wallet.details;
  if (update.name !== undefined) d.name = update.name;
  if (update.nickName !== undefined) d.nickName = update.nickName;
  if (update.phone !== undefined) d.contactPhone = update.phone;
  if (update.email !== undefined) d.email = update.email;
  if (update.abn !== undefined) d.ABN = update.abn;
  if (update.options !== undefined) {
    const options = new Map(
      (d.options as { key: string; value: string }[]).map((o) => [o.key, o.value]),
    );
    for (const { key, value } of update.options) {
      if (value === '') options.delete(key);
      else options.set(key, value);
    }
    d.options = [...options].map(([key, value]) => ({ key, value }));
  }
  deps.store.changed();
  return { ok: true, wallet };
}
