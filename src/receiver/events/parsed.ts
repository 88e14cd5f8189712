/**
 * What a field parser returns: the value, or why it was refused. A reason is a predicate that
 * reads after the field's name ("is required", "must be ..."), so the problem list can say
 * "Amount must be ..." without each parser knowing where in the body it sits.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export function accept<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

export function refuse(reason: string): Parsed<never> {
  return { ok: false, reason };
}
