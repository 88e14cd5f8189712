/**
 * Every platform endpoint the client calls, as data: where it lives, how it authenticates,
 * whether a failed attempt may be repeated. Paths follow the interface document.
 *
 * Retrying: reads are always safe to repeat. Of the writes, a refund is repeated only because it
 * carries the same `UniqueReference` (the platform's "already received" nonce), a wallet update
 * sets the same values again, a resend is deduplicated by the receiver, and a second subscription
 * create answers `WebhookAlreadySubscribed`. The sign-in is never repeated (account lock-out).
 */
type Host = 'base' | 'auth';
/** `api-key`: Basic key + empty password; `sign-in`: Basic mAccount + key; `bearer`: cached token. */
type AuthScheme = 'api-key' | 'sign-in' | 'bearer';

/**
 * What a 2xx must look like to count as the platform's answer: `envelope`, a JSON object with
 * a `status`; `json`, any JSON object (the token); `report`, the envelope or CSV text. Anything
 * else on a 2xx (an HTML page from a proxy, a truncated body) is unreadable, and for a write
 * that means the platform may have acted.
 */
type AnswerShape = 'envelope' | 'json' | 'report';

export interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  host: Host;
  auth: AuthScheme;
  retry: boolean;
  answer: AnswerShape;
  /** The `Accept` header sent. */
  accept: string;
  /** Largest answer read (bytes). */
  maxResponseBytes: number;
}

const KIB = 1024;
const MIB = 1024 * KIB;

const endpoint = (
  name: string,
  method: Endpoint['method'],
  options: Partial<Omit<Endpoint, 'name' | 'method'>> = {},
): Endpoint => ({
  name,
  method,
  host: 'base',
  auth: 'api-key',
  retry: true,
  answer: 'envelope',
  accept: 'application/json',
  maxResponseBytes: 256 * KIB,
  ...options,
});

export const ENDPOINTS = {
  token: endpoint('token', 'POST', { host: 'auth', auth: 'sign-in', retry: false, answer: 'json' }),
  payIdEnquiry: endpoint('payid-enquiry', 'POST'),
  walletSearch: endpoint('wallet-search', 'GET', { maxResponseBytes: 16 * MIB }),
  walletUpdate: endpoint('wallet-update', 'POST'),
  refund: endpoint('refund', 'POST'),
  // Public reference only: a transaction's status by the caller's nonce (a refund in doubt is
  // settled by it when it answers the refund's own record).
  transactionStatus: endpoint('transaction-status', 'GET'),
  // Both descriptions say Basic with the API key; the interface answers JSON rows, the public
  // reference `text/plain` CSV: Accept names both, so either platform can answer.
  paytoReport: endpoint('payto-report', 'GET', {
    answer: 'report',
    accept: 'application/json, text/plain;q=0.9, text/csv;q=0.9, application/octet-stream;q=0.8',
    maxResponseBytes: 32 * MIB,
  }),
  createSubscription: endpoint('subscriptions', 'POST'),
  deliveryReport: endpoint('delivery-report', 'GET', { maxResponseBytes: 16 * MIB }),
  resend: endpoint('resend', 'POST'),
} as const satisfies Record<string, Endpoint>;

export const PATHS = {
  token: '/au/security/oauth-v1/Token',
  /** v2 in the interface document, v1 (only) in the public reference. */
  payIdEnquiry: {
    interface: '/receivables/v2/payid/payIdEnquiry',
    public: '/receivables/v1/payid/payIdEnquiry',
  },
  walletSearch: '/mWallet/v1/search',
  walletUpdate: '/mWallet/v1/update',
  refund: '/receivables/v2/refund',
  transactionStatus: (uniqueReference: string) =>
    `/financial/v2/status/${encodeURIComponent(uniqueReference)}`,
  paytoReport: (date: string) => `/paytoreceivables/v1/report/${encodeURIComponent(date)}`,
  createSubscription: '/subscriptions/v1/create',
  deliveryReport: (date: string) => `/subscriptions/v1/report/${encodeURIComponent(date)}`,
  resend: (webhookId: string) => `/subscriptions/v2/resend/${encodeURIComponent(webhookId)}`,
} as const;
