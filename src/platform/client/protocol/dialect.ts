import type { Logger } from '../../../lib/logger.ts';
import { ProviderError } from './provider-error.ts';

/**
 * Two descriptions of one platform: the interface document this project implements, and the
 * platform's public reference. They disagree on a few requests (PayID's path, the wallet
 * update's spellings and types, the refund amount's type) and nobody can tell which one the live
 * platform follows. Where one request cannot satisfy both, the client sends one dialect and, on
 * an answer that proves nothing was done (a 404 for the path, a 400 or 422 to the first attempt,
 * with no attempt in doubt, whatever its body), sends the other once and remembers which one
 * was taken. `PROVIDER_DIALECT` pins one and turns the fallback off.
 */
export const DIALECT_SETTINGS = ['auto', 'interface', 'public'] as const;
/** `auto` finds out; `interface` or `public` pins one. */
export type DialectSetting = (typeof DIALECT_SETTINGS)[number];
export type Dialect = Exclude<DialectSetting, 'auto'>;

/** The calls whose request differs between the two descriptions. */
export type DialectCall = 'payid-enquiry' | 'wallet-update' | 'refund';

const otherDialect = (dialect: Dialect): Dialect =>
  dialect === 'interface' ? 'public' : 'interface';

/**
 * The answers that prove a dialect was not taken (and that nothing was done), per call. A 404 on
 * the PayID path means the path is the other dialect's. A 400 or 422 to a write's FIRST attempt,
 * with no attempt in doubt, proves the platform refused the request without acting, whatever its
 * body says: the public reference documents its 400 with no body at all, so a rule that needed
 * the refused field named would never fall back against that platform. Sending the other dialect
 * once after such a refusal is safe: a refund carries its nonce in both spellings either way.
 */
const REFUSALS: Record<DialectCall, readonly number[]> = {
  'payid-enquiry': [404, 405],
  'wallet-update': [400, 422],
  refund: [400, 422],
};

/** True when `error` shows the platform did not take this dialect's request, and did nothing. */
function isDialectRefusal(call: DialectCall, error: unknown): error is ProviderError {
  if (!(error instanceof ProviderError) || error.kind !== 'http' || error.outcomeUnknown) {
    return false;
  }
  // A refusal after retries (a 5xx, then a 400) is not a first answer: the retried attempts
  // were transient failures, and only an answer to the request as first sent is read here.
  if (error.attempts !== 1) return false;
  return REFUSALS[call].includes(error.httpStatus ?? 0);
}

export interface DialectMemory {
  /** The dialect to send first. */
  first(call: DialectCall): Dialect;
  /** False when a dialect is pinned: then a refusal is final. */
  mayFallBack(): boolean;
  /** The platform took `dialect` for `call` after refusing the other. */
  learned(call: DialectCall, dialect: Dialect, evidence: string): void;
}

/**
 * Learned dialects, per call, for the life of the client (one process). The refund's dialect is
 * also written on each refund row, so a later run starts from the one the platform last took.
 */
export function createDialectMemory(setting: DialectSetting, logger?: Logger): DialectMemory {
  const learned = new Map<DialectCall, Dialect>();
  return {
    first: (call) => (setting === 'auto' ? (learned.get(call) ?? 'interface') : setting),
    mayFallBack: () => setting === 'auto',
    learned(call, dialect, evidence) {
      if (learned.get(call) === dialect) return;
      learned.set(call, dialect);
      logger?.warn(
        { call, dialect, evidence },
        `the platform takes the ${dialect} dialect for ${call}; set PROVIDER_DIALECT=${dialect} to skip the first refused request`,
      );
    },
  };
}

/**
 * Runs `send` in the first dialect and, when the platform proves it refused that dialect and did
 * nothing, once in the other. Which error is thrown when both fail: the second, unless it too is
 * a dialect refusal (then the first, the answer to the dialect we believe in).
 */
export async function inEitherDialect<T>(
  memory: DialectMemory,
  call: DialectCall,
  send: (dialect: Dialect) => Promise<T>,
  first: Dialect = memory.first(call),
): Promise<{ value: T; dialect: Dialect; refusedAttempts: number }> {
  const sendIn = async (dialect: Dialect) => {
    try {
      return await send(dialect);
    } catch (error) {
      if (error instanceof ProviderError) error.dialect = dialect;
      throw error;
    }
  };
  try {
    return { value: await sendIn(first), dialect: first, refusedAttempts: 0 };
  } catch (error) {
    if (!memory.mayFallBack() || !isDialectRefusal(call, error)) throw error;
    const other = otherDialect(first);
    try {
      const value = await sendIn(other);
      memory.learned(call, other, error.message || `HTTP ${error.httpStatus ?? '?'}`);
      return { value, dialect: other, refusedAttempts: error.attempts };
    } catch (second) {
      // Either error thrown counts the attempts of both dialects: each was an HTTP request.
      if (isDialectRefusal(call, second)) {
        error.attempts += second.attempts;
        throw error;
      }
      if (second instanceof ProviderError) second.attempts += error.attempts;
      throw second;
    }
  }
}
