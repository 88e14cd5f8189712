/**
 * Everything the sandbox remembers, as plain JSON so it can be saved to a file and loaded back.
 * Times are epoch milliseconds on the sandbox clock; money is whole cents.
 */

export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type Fields = Record<string, JsonValue>;

export interface Wallet {
  accountNumber: string;
  pin: string;
  createdAtMs: number;
  /** mWalletDetails as the search answers it (without accountNumber, pin and financials). */
  details: Fields;
  balanceCents: number;
}

export interface PayIdRecord {
  payId: string;
  payIdName: string;
  bankAccountNumber: string;
  payIdStatus: 'Enable' | 'Disable' | 'Deregister' | 'Port';
  registeredAtMs: number;
  updatedAtMs: number;
  lastResolvedAtMs?: number;
  ledgerAccountNumber?: string | undefined;
  ledgerUniqueReference?: string | undefined;
}

export type PaymentKind = 'NPP' | 'PayTo' | 'DirectEntry';

export interface Payment {
  kind: PaymentKind;
  eventName: string;
  transactionId: string;
  /** PayTo only: what a refund may name instead of the transaction id. */
  paymentInitiationUid?: string;
  receivedAtMs: number;
  /** The payment's Sydney date-time as yyyyMMddHHmmss, for the report's range. */
  stamp: string;
  amountCents: number;
  refundedCents: number;
  /** The webhook body as sent (or as it would have been, with no subscriber). */
  payload: Fields;
}

export interface Refund {
  /** The caller's nonce; absent when the request had none (older state files: ''). */
  uniqueReference?: string;
  originalTransactionId: string;
  amountCents: number;
  atMs: number;
  /** The answer given, repeated for a request with the same UniqueReference. */
  result: Fields;
}

interface Subscription {
  subscriptionId: string;
  /** The public reference's integer id (absent in older state files). */
  id?: number;
  eventName: string;
  targetUrl: string;
  subscriptionStatus: 'On' | 'Off';
  securityToken?: string;
  createdAtMs: number;
}

export interface Attempt {
  kind: 'first' | 'retry' | 'resend';
  atMs: number;
  /** The subscriber's HTTP status; absent when there was none (network error, timeout, fault). */
  responseCode?: number;
  error?: string;
  /** The start of what the subscriber answered (at most 500 characters). */
  responseBody?: string;
  durationMs: number;
}

export interface NotificationRecord {
  webhookId: string;
  eventName: string;
  subscriptionId: string;
  url: string;
  /** The exact body, UTF-8; signed again (with the key of the moment) on every attempt. */
  body: string;
  createdAtMs: number;
  status: 'Pending' | 'Sent' | 'Error';
  retryCount: number;
  lastResponseCode: number;
  lastRetryAtMs?: number;
  attempts: Attempt[];
}

export interface SandboxState {
  version: 1;
  lastId: number;
  lastRefundTransactionId: number;
  clockOffsetMs: number;
  wallets: Wallet[];
  payIds: PayIdRecord[];
  payments: Payment[];
  refunds: Refund[];
  subscriptions: Subscription[];
  notifications: NotificationRecord[];
}

export function emptyState(): SandboxState {
  return {
    version: 1,
    lastId: 0,
    lastRefundTransactionId: 0,
    clockOffsetMs: 0,
    wallets: [],
    payIds: [],
    payments: [],
    refunds: [],
    subscriptions: [],
    notifications: [],
  };
}
