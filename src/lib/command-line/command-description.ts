/** Where a command writes: one line (or block) at a time, no trailing newline. */
export interface CommandIo {
  /** The command's result (and help asked for). */
  out(text: string): void;
  /** Progress and problems (and help shown with a usage error). */
  err(text: string): void;
}

/**
 * What an operator command works with besides its words: the environment, the project folder
 * (the embedded Postgres's data lives under it), a clock tests may set.
 */
export interface OperatorIo extends CommandIo {
  env: Record<string, string | undefined>;
  projectDir: string;
  now?: () => number;
}

export interface OptionDescription {
  /** commander's flags: `--all`, `--limit <n>`, `-n <count>`, `--no-build`. */
  flags: string;
  /**
   * Reads the value (a UsageError, or any error, is bad usage shown with the command's help);
   * `flag` is the option as written (`--limit`, `-n`), for the message.
   */
  parse?: (value: string, flag: string) => unknown;
  /** Given again, it adds a value: the option's value is the list of every one given. */
  repeatable?: boolean;
}

/** The option values by commander's attribute name (`--max-batches` → `maxBatches`). */
export type OptionValues = Readonly<Record<string, unknown>>;

export interface CommandInput {
  /** The arguments, in order (a variadic one spread). */
  args: readonly string[];
  options: OptionValues;
}

/**
 * A command as data: its name, its help (what `-h`, `--help` and `help <name>` print, word for
 * word), its arguments and options in commander's syntax, what it does, and its subcommands.
 * `run` returns what the caller's exit-code policy reads, or throws a UsageError / NotDone (or
 * any error: a failure at run time). A command with subcommands and no `run` refuses to be
 * called without one of them.
 */
export interface CommandDescription {
  name: string;
  help: string;
  /** commander's syntax: `<id>`, `[position]`, `[reason...]`. */
  arguments?: readonly string[];
  options?: readonly OptionDescription[];
  run?: (input: CommandInput) => Promise<unknown>;
  commands?: readonly (CommandDescription | LazyCommand)[];
}

/** A subcommand whose module is loaded only when it is called (or its help asked for). */
export interface LazyCommand {
  name: string;
  load: () => Promise<CommandDescription>;
}
