import type { Dialect } from '../core/dialect.ts';
import type { Fields, Wallet } from '../state/types.ts';
import { walletDetails } from './wallets.ts';

/**
 * mWalletDetails as each dialect answers it. The interface (and `any`): the four flags as the
 * text "true"/"false", `ABN`, `financials.maximumBalance`. The public reference: JSON booleans,
 * neither `ABN` nor `maximumBalance`, so a client reading either the wrong way is caught.
 */
export function walletView(wallet: Wallet, dialect: Dialect): Fields {
  const details = walletDetails(wallet);
  if (dialect !== 'public') return details;
  const { financials, ...rest } = details;
  const money = { ...(financials as Fields) };
  delete rest.ABN;
  delete money.maximumBalance;
  const flag = (name: string) => rest[name] === true || rest[name] === 'true';
  return {
    ...rest,
    isOnHold: flag('isOnHold'),
    isClosed: flag('isClosed'),
    isStolen: flag('isStolen'),
    isRegistered: flag('isRegistered'),
    financials: money,
  };
}

/** The update's answer: the interface repeats `accountNumber` at the top; the public does not. */
export function walletUpdateAnswer(wallet: Wallet, dialect: Dialect): Fields {
  const mWallet = walletView(wallet, dialect);
  return dialect === 'public' ? { mWallet } : { accountNumber: wallet.accountNumber, mWallet };
}
