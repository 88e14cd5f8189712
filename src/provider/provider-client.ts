import type { z } from 'zod';
import type { Logger } from '../logger.ts';
import { ENDPOINTS, PATHS, type Endpoint } from './endpoints.ts';
import { ProviderError } from './provider-error.ts';
import { payIdEnquiryRequest, type PayIdEnquiryRequest } from './requests/payid.ts';
import { paytoReportRequest, type PaytoReportRequest } from './requests/payto-report.ts';
import { refundRequest, type RefundRequest } from './requests/refund.ts';
import { checkRequest } from './requests/rules.ts';
import {
  createSubscriptionRequest,
  deliveryReportRequest,
  resendRequest,
  type CreateSubscriptionRequest,
  type DeliveryReportRequest,
  type ResendRequest,
} from './requests/subscriptions.ts';
import {
  walletSearchRequest,
  walletUpdateRequest,
  type WalletSearchRequest,
  type WalletUpdateRequest,
} from './requests/wallet.ts';
import type { Envelope } from './responses/envelope.ts';
import { isPayIdState, payIdResponse } from './responses/payid.ts';
import { readPaytoReport } from './responses/payto-report.ts';
import { refundResponse } from './responses/refund.ts';
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
}

type Answer<T> = T & { envelope: Envelope };

export type ProviderClient = ReturnType<typeof createProviderClient>;

export function createProviderClient(options: ProviderClientOptions) {
  const now = options.now ?? Date.now;
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

  const send = async <S extends z.ZodType<object>>(
    endpoint: Endpoint,
    schema: S,
    input: Parameters<typeof transport.call>[1],
  ): Promise<Answer<z.output<S>>> => {
    const result = await transport.call(endpoint, input);
    return { ...read(endpoint, schema, result), envelope: result.envelope };
  };

  return {
    tokens,

    /** Signs in (or reuses the cached token); answers only when it expires, never the token. */
    async signIn(): Promise<{ expiresAt: string }> {
      await tokens.token();
      return { expiresAt: new Date(tokens.expiresAt() ?? now()).toISOString() };
    },

    async payIdEnquiry(request: PayIdEnquiryRequest) {
      const body = checkRequest(ENDPOINTS.payIdEnquiry.name, payIdEnquiryRequest, request);
      return send(ENDPOINTS.payIdEnquiry, payIdResponse, {
        path: PATHS.payIdEnquiry,
        body,
        okStatus: isPayIdState,
      });
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

    async walletUpdate(request: WalletUpdateRequest) {
      const body = checkRequest(ENDPOINTS.walletUpdate.name, walletUpdateRequest, request);
      return send(ENDPOINTS.walletUpdate, walletUpdateResponse, { path: PATHS.walletUpdate, body });
    },

    /** Safe to retry only because `UniqueReference` is the same on every attempt. */
    async refund(request: RefundRequest) {
      const body = checkRequest(ENDPOINTS.refund.name, refundRequest, request);
      return send(ENDPOINTS.refund, refundResponse, { path: PATHS.refund, body });
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
      return { receipts: readPaytoReport(result.json, result.text), envelope: result.envelope };
    },

    async createSubscription(request: CreateSubscriptionRequest) {
      const body = checkRequest(
        ENDPOINTS.createSubscription.name,
        createSubscriptionRequest,
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
