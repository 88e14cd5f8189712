import type { z } from 'zod';
import type { Variable } from './variable.ts';

/** A section's variables, each under the field the code reads it by, in the README's order. */
export type Variables = Readonly<Record<string, Variable>>;

/** Each variable parsed: its default applied, its type coerced. */
export type ValuesOf<V extends Variables> = { readonly [K in keyof V]: z.output<V[K]['schema']> };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any section, whatever it reads
export type AnySection = Section<any, any, any>;

type Uses = Readonly<Record<string, AnySection>>;

/** What a section contributes to the loaded configuration. */
export type OutputOf<S extends AnySection> = ReturnType<S['read']>;

export interface ReadContext<U extends Uses> {
  /** What the sections this one uses have read (each loaded before it, without a problem). */
  readonly uses: { readonly [K in keyof U]: OutputOf<U[K]> };
  /** A problem across this section's variables: the load fails, naming it with every other. */
  problem(message: string): void;
  /** A variable's text as the environment gives it (after `NAME_FILE`), blank or not. */
  raw(name: string): string | undefined;
}

/**
 * One module's part of the configuration: its variables, and how they are read into the fields
 * its code uses (by default, each variable under its own field). Sections are composed in
 * src/cli/config.ts; each module's code knows only its own sections' types.
 */
export interface Section<V extends Variables, O extends object, U extends Uses> {
  readonly variables: V;
  readonly uses: U;
  /** Each variable's value when unset (undefined: none): for code given only a few fields. */
  readonly defaults: { readonly [K in keyof V]: V[K]['default'] };
  read(values: ValuesOf<V>, context: ReadContext<U>): O;
}

export function defineSection<
  V extends Variables,
  O extends object = ValuesOf<V>,
  U extends Uses = Record<never, never>,
>(spec: {
  variables: V;
  /** Sections whose result this one's rules need (composed before it). */
  uses?: U;
  /** The fields the code reads, and the rules across variables; without it, the values as they are. */
  read?: (values: ValuesOf<V>, context: ReadContext<U>) => O;
}): Section<V, O, U> {
  const defaults = Object.fromEntries(
    Object.entries(spec.variables).map(([field, declared]) => [field, declared.default]),
  );
  return Object.freeze({
    variables: spec.variables,
    uses: spec.uses ?? ({} as U),
    defaults: defaults as Section<V, O, U>['defaults'],
    read: spec.read ?? ((values: ValuesOf<V>) => values as unknown as O),
  });
}
