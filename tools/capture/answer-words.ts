/**
 * What the receiver's answer means, from its envelope's `statusDescription`: a 200 is either a
 * delivery stored now or one it already had, and the two must not read alike: a replay answered
 * "duplicate" did not exercise the receiver's checks again. The texts are the receiver's
 * (src/receiver/delivery/receive-delivery.ts and delivery-answers.ts, which a tool may not import); the
 * replay test pins them to those modules.
 */
export const DESCRIPTIONS = {
  stored: 'Delivery stored',
  duplicate: 'Delivery already received',
  quarantined: 'Delivery refused and kept for review',
} as const;

export type AnswerKind = 'stored' | 'duplicate' | 'quarantined';

export function answerKind(description: string | undefined): AnswerKind | undefined {
  const found = Object.entries(DESCRIPTIONS).find(([, text]) => text === description);
  return found?.[0] as AnswerKind | undefined;
}

/** `stored`, `duplicate (already stored)`, `quarantined`, or the description itself, quoted. */
export function answerWords(description: string | undefined): string | undefined {
  const kind = answerKind(description);
  if (kind === 'duplicate') return 'duplicate (already stored)';
  if (kind !== undefined) return kind;
  return description === undefined || description === '' ? undefined : `"${description}"`;
}

/** The envelope's `statusDescription`, if the answer has one. */
export function envelopeDescription(body: Buffer | string): string | undefined {
  try {
    const parsed = JSON.parse(body.toString()) as { statusDescription?: unknown };
    return typeof parsed.statusDescription === 'string' ? parsed.statusDescription : undefined;
  } catch {
    return undefined;
  }
}
