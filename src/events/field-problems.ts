import type { z } from 'zod';
import type { FieldProblem } from './types.ts';

/**
 * Zod issues as the problem list of a 400 answer and a quarantine record: a JSON path
 * ("Amount", "RefundDetails.RefundAmount", "[2].id", "" for the body) and a sentence an operator
 * can act on ("Amount must be a number ...", "The body must be a JSON object ...").
 * The schemas word their own messages as predicates that follow the field's name.
 */
export function toFieldProblems(issues: readonly z.core.$ZodIssue[]): FieldProblem[] {
  return issues.map((issue) => {
    const path = formatPath(issue.path);
    const subject = path === '' ? 'The body' : path;
    return { path, message: `${subject} ${predicate(issue)}` };
  });
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === 'number') return `${text}[${key}]`;
    const name = String(key);
    return text === '' ? name : `${text}.${name}`;
  }, '');
}

function predicate(issue: z.core.$ZodIssue): string {
  // Zod's own wording for a key that is missing and may not be; the field schemas in fields.ts
  // and the shape errors of each model word every other message as a predicate.
  if (issue.code === 'invalid_type' && issue.expected === 'nonoptional') return 'is required';
  return issue.message;
}
