import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.ts';
import { readSecretFiles } from './secret-files.ts';
import type { AnySection, OutputOf, Variables } from './section.ts';
import type { Variable } from './variable.ts';

/**
 * Configuration is one pure function over the environment: every section's variables parsed in
 * one pass, every problem of every section collected, and all of them thrown at once in a
 * ConfigError, by name, so an operator fixes a deployment in one go instead of one restart per
 * typo. A section's rules run once its own variables and the sections it uses have read well.
 */

export type Environment = Readonly<Record<string, string | undefined>>;

/** How a command that needs the configuration gets it (src/cli/config.ts composes it). */
export type ConfigLoader<C> = (env: Environment) => C;

type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? I
  : never;

/** The loaded configuration of `sections`: what each contributes, side by side. */
export type ConfigOf<S extends readonly AnySection[]> = Readonly<Intersection<OutputOf<S[number]>>>;

export interface LoadOptions {
  /** Reads a `*_FILE` variable's file (default: from disk). */
  readFile?: (path: string) => string;
}

/** Every variable of `sections`, in their order: the README's (tools/docs/ writes them out). */
export function variablesOf(sections: readonly AnySection[]): Variable[] {
  const variables = sections.flatMap((section) => Object.values(section.variables as Variables));
  const names = variables.map((declared) => declared.name);
  const twice = names.filter((name, index) => names.indexOf(name) !== index);
  if (twice.length > 0) throw new Error(`${twice.join(', ')}: declared by two sections`);
  return variables;
}

/** The variables that may come from `NAME_FILE`: those marked secret. */
export function secretNamesOf(sections: readonly AnySection[]): string[] {
  return variablesOf(sections)
    .filter((declared) => declared.secret)
    .map((declared) => declared.name);
}

export function loadSettings<const S extends readonly AnySection[]>(
  sections: S,
  rawEnv: Environment,
  options: LoadOptions = {},
): ConfigOf<S> {
  const files = readSecretFiles(
    rawEnv,
    secretNamesOf(sections),
    options.readFile ?? ((file) => readFileSync(file, 'utf8')),
  );
  const env = files.env;
  const given = withoutBlanks(env);
  const problems = [...files.problems];
  const outputs = new Map<AnySection, object>();
  const config: Record<string, unknown> = {};
  sections.forEach((section, index) => {
    const uses = Object.entries(section.uses as Record<string, AnySection>);
    if (uses.some(([, used]) => !sections.slice(0, index).includes(used))) {
      throw new Error(`${describe(section)}: uses a section not composed before it`);
    }
    const { values, issues } = parse(section.variables as Variables, given);
    problems.push(...issues);
    if (issues.length > 0 || uses.some(([, used]) => !outputs.has(used))) return;
    const found: string[] = [];
    const output = section.read(values, {
      uses: Object.fromEntries(uses.map(([key, used]) => [key, outputs.get(used)])),
      problem: (message: string) => found.push(message),
      raw: (name: string) => env[name],
    }) as object;
    problems.push(...found);
    if (found.length > 0) return;
    outputs.set(section, output);
    for (const [field, value] of Object.entries(output)) {
      if (Object.hasOwn(config, field)) throw new Error(`${field}: read by two sections`);
      config[field] = value;
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return frozen(config) as ConfigOf<S>;
}

function parse(variables: Variables, given: Record<string, string>) {
  const values: Record<string, unknown> = {};
  const issues: string[] = [];
  for (const [field, declared] of Object.entries(variables)) {
    const parsed = declared.schema.safeParse(given[declared.name]);
    if (parsed.success) values[field] = parsed.data;
    else {
      for (const issue of parsed.error.issues) {
        issues.push(`${[declared.name, ...issue.path].join('.')}: ${issue.message}`);
      }
    }
  }
  return { values, issues };
}

/** `FOO=` in an env file means "not set", so the default applies rather than a parse error. */
function withoutBlanks(env: Environment): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]?.trim()),
  );
}

/** The loaded configuration is frozen all the way down (plain objects and arrays). */
function frozen<T>(value: T): T {
  const plain =
    Array.isArray(value) ||
    (typeof value === 'object' &&
      value !== null &&
      Object.getPrototypeOf(value) === Object.prototype);
  if (!plain) return value;
  for (const inner of Object.values(value)) frozen(inner);
  return Object.freeze(value);
}

function describe(section: AnySection): string {
  const [first] = variablesOf([section]);
  return first ? `the section of ${first.name}` : 'a section without variables';
}
