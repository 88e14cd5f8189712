import type { z } from 'zod';

/**
 * What the README's configuration table and `.env.example` say about a variable. Both files are
 * generated from the declarations (`npm run docs:config`, tools/docs/), and a test fails when
 * either is stale.
 */
export interface VariableDoc {
  /** The README table's "meaning", and the comment above the variable in `.env.example`. */
  readonly doc: string;
  /** May come from `NAME_FILE` (a mounted secret); its value is never shown, only `example`. */
  readonly secret?: true;
  /** The README's default column where the schema has none (`_(unset)_` otherwise). */
  readonly defaultText?: string;
  /** `.env.example`'s value (commented out) for a variable without a default. */
  readonly example?: string;
  /** Starts a section of `.env.example`: its title, and a note shown above its first variable. */
  readonly section?: string;
  readonly sectionNote?: string;
  /**
   * For a development machine only (the embedded Postgres): docker-compose.yml does not pass it
   * to the containers, whose image has no embedded Postgres.
   */
  readonly developmentOnly?: true;
}

/** One environment variable: its name, its parse (type, bounds, default) and its documentation. */
export interface Variable<S extends z.ZodType = z.ZodType> extends VariableDoc {
  readonly name: string;
  readonly schema: S;
  /** What the variable is when unset: its default, or undefined when it has none. */
  readonly default: z.output<S>;
}

/**
 * Declares a variable. Unset, it takes its schema's default or stays undefined: a variable that
 * must be set says so in a rule of its section, by name, with every other problem.
 */
export function variable<S extends z.ZodType>(
  name: string,
  schema: S,
  doc: VariableDoc,
): Variable<S> {
  const unset = schema.safeParse(undefined);
  if (!unset.success) throw new Error(`${name}: give it a default, or make it optional`);
  return Object.freeze({ ...doc, name, schema, default: unset.data });
}
