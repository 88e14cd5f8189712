import { Command, CommanderError, Option } from 'commander';
import type {
  CommandDescription,
  CommandIo,
  LazyCommand,
  OptionDescription,
  OptionValues,
} from './command-description.ts';
import { UsageError } from './errors.ts';

/**
 * Runs the command `description` describes on `argv` (the words after the program's name), on
 * commander: the subcommand named, its options and arguments. Answers what that command's `run`
 * returned, or undefined once help was printed. `-h`, `--help` and `help <command>` print the
 * same text, each command's own, on `io.out`. Commander never exits the process nor writes an
 * error itself: words it cannot read, a missing argument, an unknown command or option throw a
 * UsageError carrying the help of the command called; so does a UsageError the command throws
 * without help of its own. Everything else the command throws is thrown on.
 */
export async function runCommand(
  description: CommandDescription,
  argv: readonly string[],
  io: CommandIo,
): Promise<unknown> {
  const outcome: Outcome = {};
  const program = buildCommand(description, io, outcome);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && error.code === HELP_SHOWN) return undefined;
    throw error;
  }
  return outcome.result;
}

/**
 * The values `argv` gives `options`, read as a command reads them (nothing run, no help): for a
 * caller that only wants them. Words that are off throw a UsageError.
 */
export function readOptions(
  options: readonly OptionDescription[],
  argv: readonly string[],
): OptionValues {
  const command = newCommand('options', '', { out: () => {}, err: () => {} }).helpOption(false);
  for (const option of options) command.addOption(optionOf(option, ''));
  command.parse([...argv], { from: 'user' });
  return command.opts();
}

/** Commander's word for `-h` / `--help` answered (the help printed). */
const HELP_SHOWN = 'commander.helpDisplayed';

/** What the command that ran returned (commander's parse answers the command, not the result). */
interface Outcome {
  result?: unknown;
}

function buildCommand(description: CommandDescription, io: CommandIo, outcome: Outcome): Command {
  const help = description.help.trimEnd();
  const command = newCommand(description.name, help, io).configureHelp({ formatHelp: () => help });
  for (const argument of description.arguments ?? []) command.argument(argument);
  for (const option of description.options ?? []) command.addOption(optionOf(option, help));
  const subcommands = description.commands ?? [];
  for (const sub of subcommands) {
    command.addCommand(
      'load' in sub ? lazyCommand(sub, io, outcome) : buildCommand(sub, io, outcome),
    );
  }
  if (subcommands.length > 0) {
    command.addCommand(buildCommand(helpCommand(description, help, io), io, outcome));
  }
  const run = description.run;
  if (run) {
    command.action(async () => {
      const args = (command.processedArgs as (string | string[] | undefined)[]).flatMap(
        (arg) => arg ?? [],
      );
      try {
        outcome.result = await run({ args, options: command.opts() });
      } catch (error) {
        throw error instanceof UsageError && error.help === undefined
          ? new UsageError(error.message, help)
          : error;
      }
    });
  } else if (subcommands.length > 0) {
    command
      .argument('[command]')
      .allowExcessArguments()
      .action((name: string | undefined) => {
        throw new UsageError(
          name === undefined ? 'no command given' : `unknown command: ${name}`,
          help,
        );
      });
  }
  return command;
}

/** A commander command that writes to `io`, never exits, and turns its errors into UsageErrors. */
function newCommand(name: string, help: string, io: CommandIo): Command {
  const line = (write: (text: string) => void) => (text: string) => write(text.replace(/\n$/, ''));
  return new Command(name)
    .exitOverride((error) => {
      if (error.code === HELP_SHOWN) throw error; // done: runCommand answers
      throw new UsageError(error.message.replace(/^error: /, ''), help);
    })
    .configureOutput({ writeOut: line(io.out), writeErr: line(io.err), outputError: () => {} })
    .helpCommand(false)
    .enablePositionalOptions();
}

function optionOf(described: OptionDescription, help: string): Option {
  const option = new Option(described.flags);
  const { parse, repeatable } = described;
  if (!parse && !repeatable) return option;
  const flag = option.long ?? option.short ?? option.flags;
  return option.argParser((value: string, previous: unknown) => {
    let parsed: unknown = value;
    try {
      if (parse) parsed = parse(value, flag);
    } catch (error) {
      throw error instanceof UsageError
        ? new UsageError(error.message, error.help ?? help)
        : new UsageError(error instanceof Error ? error.message : String(error), help);
    }
    return repeatable ? [...((previous as unknown[] | undefined) ?? []), parsed] : parsed;
  });
}

/**
 * A subcommand loaded when called: it takes every word after its name as it is and hands them to
 * the command its module describes (its help included: `<name> --help`).
 */
function lazyCommand(lazy: LazyCommand, io: CommandIo, outcome: Outcome): Command {
  return newCommand(lazy.name, '', io)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .passThroughOptions()
    .argument('[words...]')
    .action(async (words: string[]) => {
      outcome.result = await runCommand(await lazy.load(), words, io);
    });
}

/** `help [command]` of a command with subcommands: its own help, or that subcommand's. */
function helpCommand(group: CommandDescription, help: string, io: CommandIo): CommandDescription {
  return {
    name: 'help',
    help,
    arguments: ['[command]'],
    run: async ({ args: [name] }) => {
      const sub = group.commands?.find((command) => command.name === name);
      if (name !== undefined && !sub) throw new UsageError(`unknown command: ${name}`, help);
      const described = sub && ('load' in sub ? await sub.load() : sub);
      io.out(described ? described.help.trimEnd() : help);
    },
  };
}
