import { flag, lenientObject, listOf, money, text } from './lenient.ts';

/** mWalletDetails; every field optional, booleans arrive as the text `true` / `false`. */
const financials = lenientObject({
  actualBalance: money,
  availableSpend: money,
  availableLoad: money,
  maximumBalance: money,
});

const optionItem = lenientObject({ key: text, value: text });

const walletDetails = lenientObject({
  accountNumber: text,
  createdDateTime: text,
  name: text,
  nickName: text,
  email: text,
  mobile: text,
  lastTransactionDate: text,
  contactPhone: text,
  authenticationEmail: text,
  authenticationMobile: text,
  authenticationLandLine: text,
  registeredByMAccountNumber: text,
  isOnHold: flag,
  isClosed: flag,
  isStolen: flag,
  isRegistered: flag,
  financials: financials.optional().catch(undefined),
  options: listOf(optionItem),
  ABN: text,
});

export const walletSearchResponse = lenientObject(
  { mWallets: listOf(walletDetails) },
  { mWallets: ['wallets'] },
);

export const walletUpdateResponse = lenientObject(
  { accountNumber: text, mWallet: walletDetails.optional().catch(undefined) },
  { mWallet: ['wallet'] },
);
