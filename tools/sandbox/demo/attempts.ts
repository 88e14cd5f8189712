import { answerWords, envelopeDescription } from '../../capture/answer-words.ts';
import type { Call } from '../core/client.ts';

/** One attempt of a notification, as `GET /sandbox/deliveries` lists it. */
export interface AttemptView {
  kind: 'first' | 'retry' | 'resend';
  responseCode?: number;
  error?: string;
  /** The start of what the receiver answered. */
  responseBody?: string;
}

/**
 * Every attempt of one notification, oldest first. The delivery report keeps only the last
 * response code, so a first 503 stored on the platform's retry would read as a plain 200.
 */
export async function attemptsOf(call: Call, webhookId: string): Promise<AttemptView[]> {
  const { body } = await call('GET', `/sandbox/deliveries?webhookId=${webhookId}`);
  const [delivery] = body.deliveries as { attempts: AttemptView[] }[];
  return delivery?.attempts ?? [];
}

/** `200 stored`, `200 duplicate (already stored)`, `503 "Signing key unavailable; retry later"`, `no answer (…)`. */
function describeAttempt(attempt: AttemptView): string {
  if (attempt.responseCode === undefined) return `no answer (${attempt.error ?? 'network error'})`;
  const words = answerWords(envelopeDescription(attempt.responseBody ?? ''));
  return words === undefined ? String(attempt.responseCode) : `${attempt.responseCode} ${words}`;
}

/** Each attempt in order: `503 "…" → 200 stored on the retry`. */
export function describeAttempts(attempts: readonly AttemptView[]): string {
  if (attempts.length === 0) return 'no attempt';
  return attempts
    .map((attempt, index) =>
      index === 0 && attempt.kind === 'first'
        ? describeAttempt(attempt)
        : `${describeAttempt(attempt)} on the ${attempt.kind === 'first' ? 'first attempt' : attempt.kind}`,
    )
    .join(' → ');
}
