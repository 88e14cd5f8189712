import type { z } from 'zod';
import type { Logger } from '../../lib/logger.ts';
import { worldOf } from '../../lib/platform-location.ts';
import {
  createDialectMemory,
  inEitherDialect,
  type Dialect,
  type DialectMemory,
  type DialectSetting,
} from './protocol/dialect.ts';
import { ENDPOINTS, PATHS, type Endpoint } from './endpoints.ts';
import { ProviderError } from './protocol/provider-error.ts';
import { providerClientSettings } from './settings.ts';
import { payIdEnquiryRequest, type PayIdEnquiryRequest } from './requests/payid.ts';
import { paytoReportRequest, type PaytoReportRequest } from './requests/payto-report.ts';
import { refundBody, refundRequest, type RefundRequest } from './requests/refund.ts';
import { checkRequest } from './requests/rules.ts';
import {
  createSubscriptionRequest,
  deliveryReportRequest,
  localCreateSubscriptionRequest,
  resendRequest,
  type CreateSubscriptionRequest,
  type DeliveryReportRequest,
  type ResendRequest,
} from './requests/subscriptions.ts';
import {
  walletSearchRequest,
  walletUpdateBody,
  walletUpdateRequest,
  type CheckedWalletUpdate,
  type WalletSearchRequest,
  type WalletUpdateRequest,
} from './requests/wallet.ts';
import type { Envelope } from './responses/envelope.ts';
import { isPayIdState, payIdResponse } from './responses/payid.ts';
import { readPaytoReport } from './responses/payto-report.ts';
import { refundResponse } from './responses/refund.ts';
import {
  refundStatusEvidence,
  transactionStatusResponse,
  type RefundStatusEvidence,
} from './responses/transaction-status.ts';
import { createSubscriptionResponse, deliveryReportResponse } from './responses/subscriptions.ts';
import { tokenResponse } from './responses/token.ts';
import { walletSearchResponse, walletUpdateResponse } from './responses/wallet.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { createTokenCache, type TokenCache } from './token-cache.ts';
import { createTransport, type CallResult } from './transport.ts';

/**
 * The typed client: one method per endpoint. Each checks its request against the interface's
 * rules before anything is sent, and reads the answer leniently. Every failure is a
 * ProviderError. Build one per process (it holds the bearer token cache).
 */
export interface ProviderClientOptions {
  baseUrl: string;
  authUrl: string;
  apiKey: string | undefined;
  mAccount: string | undefined;
  timeoutMs: number;
  retry?: RetryPolicy;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  logger?: Logger;
  /** `auto` (default): interface first, the other dialect once when the platform proves it refused. */
  dialect?: DialectSetting;
}

type Answer<T> = T & { envelope: Envelope };

export type ProviderClient = ReturnType<typeof createProviderClient>;

export function createProviderClient(options: ProviderClientOptions) {
  const now = options.now ?? Date.now;
  // The sandbox on this machine (PROVIDER_ENV=local): it can deliver to a receiver here over http.
  const platformIsLocal = worldOf(options.baseUrl) === 'local';
  const common = {
    ...options,
    retry: options.retry ?? DEFAULT_RETRY_POLICY,
    fetch: options.fetch ?? fetch,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
    random: options.random ?? Math.random,
  };
  const signInTransport = createTransport(common);
  const tokens: TokenCache = createTokenCache({
    now,
    signIn: async () => {
      const result = await signInTransport.call(ENDPOINTS.token, { path: PATHS.token });
      return read(ENDPOINTS.token, tokenResponse, result).token;
    },
  });
  const transport = createTransport({ ...common, tokens });
  const dialects: DialectMemory = createDialectMemory(
    options.dialect ?? providerClientSettings.defaults.dialect,
    options.logger,
  );

  const send = async <S extends z.ZodType<object>>(
    endpoint: Endpoint,
    schema: S,
    input: Parameters<typeof transport.call>[1],
  ): Promise<Answer<z.output<S>>> => {
    const result = await transport.call(endpoint, input);
    return { ...read(endpoint, schema, result), envelope: result.envelope };
  };

  /**
   * The public reference requires `name` on every wallet update; when the caller is not
   * changing it, the wallet's current name is sent (found by its account number).
   */
  async function withName(request: CheckedWalletUpdate): Promise<CheckedWalletUpdate> {
    if (request.name !== undefined) return request;
    const found = await send(ENDPOINTS.walletSearch, walletSearchResponse, {
      path: PATHS.walletSearch,
      query: { clientUniqueIdentifier: request.accountNumber, identifier: request.accountNumber },
    });
    const name = found.mWallets.find((w) => w.accountNumber === request.accountNumber)?.name;
    if (name !== undefined) return { ...request, name };
    throw new ProviderError({
      endpoint: ENDPOINTS.walletUpdate.name,
      kind: 'invalid-request',
      statusDescription: 'request refused before sending',
      fieldErrors: [
        {
          path: 'name',
          message:
            "name is required by this platform (public reference) and the wallet's current name could not be found: pass it",
        },
      ],
    });
  }

  return {
    tokens,

    /** Signs in (or reuses the cached token); answers only when it expires, never the token. */
    async signIn(): Promise<{ expiresAt: string }> {
      await tokens.token();
      return { expiresAt: new Date(tokens.expiresAt() ?? now()).toISOString() };
    },

    dialects,

    /** v2 (interface) or v1 (public reference): a 404 on one path means try the other. */
    async payIdEnquiry(request: PayIdEnquiryRequest) {
      const body = checkRequest(ENDPOINTS.payIdEnquiry.name, payIdEnquiryRequest, request);
      const { value } = await inEitherDialect(dialects, 'payid-enquiry', (dialect) =>
        send(ENDPOINTS.payIdEnquiry, payIdResponse, {
          path: PATHS.payIdEnquiry[dialect],
          body,
          okStatus: isPayIdState,
        }),
      );
      return value;
    },

    async walletSearch(request: WalletSearchRequest = {}) {
      const query = checkRequest(ENDPOINTS.walletSearch.name, walletSearchRequest, request);
      const identifier = query.clientUniqueIdentifier;
      // The public reference names this parameter `identifier`: send both names.
      return send(ENDPOINTS.walletSearch, walletSearchResponse, {
        path: PATHS.walletSearch,
        query: { clientUniqueIdentifier: identifier, identifier },
      });
    },

    /**
     * Interface spellings first (`Email`, `ABN`, pin as text); the public reference's (`email`,
     * `abn`, pin a number, `name` required) when the platform refuses one of those fields.
     */
    async walletUpdate(request: WalletUpdateRequest) {
      const checked = checkRequest(ENDPOINTS.walletUpdate.name, walletUpdateRequest, request);
      const { value } = await inEitherDialect(dialects, 'wallet-update', async (dialect) => {
        const complete = dialect === 'public' ? await withName(checked) : checked;
        return send(ENDPOINTS.walletUpdate, walletUpdateResponse, {
          path: PATHS.walletUpdate,
          body: walletUpdateBody(complete, dialect),
        });
      });
      return value;
    },

    /**
     * Safe to retry only because the nonce is the same on every attempt, in both spellings.
     * `dialect` is where to start (a refund row remembers the one the platform took); the
     * answer says which dialect the platform took.
     */
    async refund(request: RefundRequest, start?: Dialect) {
      const checked = checkRequest(ENDPOINTS.refund.name, refundRequest, request);
      const { value, dialect, refusedAttempts } = await inEitherDialect(
        dialects,
        'refund',
        async (d) => {
          const result = await transport.call(ENDPOINTS.refund, {
            path: PATHS.refund,
            body: refundBody(checked, d),
          });
          try {
            return {
              ...read(ENDPOINTS.refund, refundResponse, result),
              envelope: result.envelope,
              attempts: result.attempts,
            };
          } catch (error) {
            // An Ok the client cannot read is an answer, after `result.attempts` requests.
            if (error instanceof ProviderError) error.attempts = result.attempts;
            throw error;
          }
        },
        start,
      );
      // Every HTTP request sent for this refund, in both dialects (a refund row counts them).
      return { ...value, dialect, attempts: value.attempts + refusedAttempts };
    },

    /**
     * What the platform's status look-up by nonce proves about a refund in doubt: its own record
     * (made, or rejected), or no evidence (any failure, a "not found", another record). Never
     * throws for the platform's answer: a look-up that fails leaves the refund as it was.
     */
    async refundStatus(uniqueReference: string): Promise<RefundStatusEvidence> {
      try {
        const answer = await send(ENDPOINTS.transactionStatus, transactionStatusResponse, {
          path: PATHS.transactionStatus(uniqueReference),
        });
        return refundStatusEvidence(answer, uniqueReference);
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        return { kind: 'no-evidence', reason: error.message };
      }
    },

    async paytoReport(request: PaytoReportRequest) {
      const { date, ...query } = checkRequest(
        ENDPOINTS.paytoReport.name,
        paytoReportRequest,
        request,
      );
      const result = await transport.call(ENDPOINTS.paytoReport, {
        path: PATHS.paytoReport(date),
        query,
      });
      return { ...readPaytoReport(result.json, result.text), envelope: result.envelope };
    },

    async createSubscription(request: CreateSubscriptionRequest) {
      const body = checkRequest(
        ENDPOINTS.createSubscription.name,
        platformIsLocal ? localCreateSubscriptionRequest : createSubscriptionRequest,
        request,
      );
      return send(ENDPOINTS.createSubscription, createSubscriptionResponse, {
        path: PATHS.createSubscription,
        body,
      });
    },

    async deliveryReport(request: DeliveryReportRequest) {
      const { date, skip, take } = checkRequest(
        ENDPOINTS.deliveryReport.name,
        deliveryReportRequest,
        request,
      );
      return send(ENDPOINTS.deliveryReport, deliveryReportResponse, {
        path: PATHS.deliveryReport(date),
        query: { skip: skip?.toString(), take: take?.toString() },
      });
    },

    async resend(request: ResendRequest) {
      const { webhookId } = checkRequest(ENDPOINTS.resend.name, resendRequest, request);
      const result = await transport.call(ENDPOINTS.resend, { path: PATHS.resend(webhookId) });
      return { webhookId, envelope: result.envelope };
    },
  };
}

function read<S extends z.ZodType>(endpoint: Endpoint, schema: S, result: CallResult): z.output<S> {
  const parsed = schema.safeParse(result.json ?? {});
  if (parsed.success) return parsed.data;
  throw new ProviderError({
    endpoint: endpoint.name,
    kind: 'invalid-response',
    httpStatus: result.httpStatus,
    statusDescription: parsed.error.issues.map((issue) => issue.message).join('; '),
  });
}
