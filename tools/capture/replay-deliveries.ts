import type { Agent } from 'node:http';
import { parseWebhookId } from '../../src/receiver/contract.ts';
import { bodyBytes } from '../../src/capture/index.ts';
import type { LoadedCapture } from './capture-files.ts';
import type { CapturedDelivery } from '../../src/capture/index.ts';
import { differencesFromExpected } from '../../src/capture/index.ts';
import { envelopeStatus, postBytes } from '../common/post-delivery.ts';
import { answerKind, envelopeDescription, type AnswerKind } from './answer-words.ts';

export interface ReplayOptions {
  /** The receiver's base URL; deliveries go to `<url>/webhooks/<eventName>`. */
  url: string;
  /** Sent as `Authorisation`: files never hold the shared secret. */
  secret?: string;
  /**
   * Replaces each file's well-formed Webhookid, e.g. to get past deduplication on id. A missing
   * or malformed one is kept: it is what such a file is about.
   */
  newWebhookId?: () => string;
  timeoutMs?: number;
  agent?: Agent;
}

export interface ReplayResult {
  file: string;
  expectedStatus: number | undefined;
  status: number | undefined;
  envelopeStatus: string | undefined;
  /** The envelope's `statusDescription` ("Delivery stored", "Delivery already received", ...). */
  description?: string;
  /** What that description means, when it is one of the receiver's delivery answers. */
  answer?: AnswerKind;
  /** Why the answer is not the file's expected one (or why nothing was sent); empty: it matches. */
  differences: string[];
}

/** Re-sends each file in turn, byte for byte, and compares each answer with `expected`. */
export async function replayCaptures(
  captures: readonly LoadedCapture[],
  options: ReplayOptions,
): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const capture of captures) {
    if (!capture.ok) {
      results.push({
        file: capture.file,
        expectedStatus: undefined,
        status: undefined,
        envelopeStatus: undefined,
        differences: capture.problems.map((problem) => `not sent: ${problem}`),
      });
      continue;
    }
    results.push(await replayOne(capture.file, capture.delivery, options));
  }
  return results;
}

async function replayOne(
  file: string,
  delivery: CapturedDelivery,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const expectedStatus = delivery.expected.status;
  try {
    const answer = await postBytes(deliveryUrl(options.url, delivery.eventName), {
      headers: replayHeaders(delivery, options),
      body: bodyBytes(delivery),
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(options.agent && { agent: options.agent }),
    });
    const observed = { status: answer.status, envelopeStatus: envelopeStatus(answer.body) };
    const description = envelopeDescription(answer.body);
    const kind = answerKind(description);
    return {
      file,
      expectedStatus,
      ...observed,
      ...(description !== undefined && { description }),
      ...(kind !== undefined && { answer: kind }),
      differences: differencesFromExpected(delivery.expected, observed),
    };
  } catch (error) {
    const message = `no answer: ${(error as Error).message}`;
    return {
      file,
      expectedStatus,
      status: undefined,
      envelopeStatus: undefined,
      differences: [message],
    };
  }
}

function deliveryUrl(base: string, eventName: string): URL {
  const url = new URL(base);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return new URL(`webhooks/${eventName}`, url);
}

function replayHeaders(delivery: CapturedDelivery, options: ReplayOptions): Record<string, string> {
  const headers = { ...delivery.headers };
  if (options.newWebhookId && parseWebhookId(headers.webhookid).ok) {
    headers.webhookid = options.newWebhookId();
  }
  if (options.secret !== undefined) headers.authorisation = options.secret;
  return headers;
}

/** Unique Webhookids for one replay run: the clock in microseconds, then counting up. */
export function webhookIdCounter(now: () => number = Date.now): () => string {
  let next = BigInt(now()) * 1000n;
  return () => {
    next += 1n;
    return next.toString();
  };
}

export interface ReplaySummary {
  files: number;
  matched: number;
  differed: number;
  /** Answered 200 "Delivery already received": the receiver had them before this replay. */
  duplicates: number;
}

export function summariseReplay(results: readonly ReplayResult[]): ReplaySummary {
  const matched = results.filter((result) => result.differences.length === 0).length;
  const duplicates = results.filter((result) => result.answer === 'duplicate').length;
  return { files: results.length, matched, differed: results.length - matched, duplicates };
}
