import { describe, expect, it } from 'vitest';
import type { CommandDescription } from '../../../src/lib/command-line/command-description.ts';
import { NotDone, UsageError } from '../../../src/lib/command-line/errors.ts';
import { readOptions, runCommand } from '../../../src/lib/command-line/run-command.ts';
import { wholeNumber } from '../../../src/lib/command-line/whole-number.ts';

/** A program like main.ts's: a lazy group, a leaf with options, a group with subcommands. */
function program(loaded: string[] = []): CommandDescription {
  const feed: CommandDescription = {
    name: 'feed',
    help: 'FEED HELP',
    commands: [
      {
        name: 'redrive',
        help: 'REDRIVE HELP',
        arguments: ['[id]'],
        options: [{ flags: '--all' }],
        run: ({ args, options }) => {
          if (args[0] === undefined && options.all !== true) throw new UsageError('needs an id');
          return Promise.resolve({ args, options });
        },
      },
      {
        name: 'pause',
        help: 'PAUSE HELP',
        arguments: ['[reason...]'],
        run: (input) => Promise.resolve(input),
      },
    ],
  };
  const prune: CommandDescription = {
    name: 'prune',
    help: 'PRUNE HELP',
    options: [
      { flags: '--max-batches <N>', parse: wholeNumber(10) },
      { flags: '--date <day>', repeatable: true },
      { flags: '--dry-run' },
    ],
    run: ({ options }) => Promise.resolve(options),
  };
  const lazily = (described: CommandDescription) => ({
    name: described.name,
    load: () => {
      loaded.push(described.name);
      return Promise.resolve(described);
    },
  });
  return { name: 'main', help: 'MAIN HELP', commands: [lazily(feed), lazily(prune)] };
}

async function run(argv: string[], loaded: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  try {
    const result = await runCommand(program(loaded), argv, {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    });
    return { result, out, err };
  } catch (error) {
    return { error, out, err };
  }
}

describe('the command-line scaffold', () => {
  it('when help is asked as -h, --help or help <command>, then every command and subcommand prints its own help on out, the same each way', async () => {
    const asked: [string[][], string][] = [
      [[['-h'], ['--help'], ['help']], 'MAIN HELP'],
      [
        [
          ['feed', '-h'],
          ['feed', '--help'],
          ['help', 'feed'],
          ['feed', 'help'],
        ],
        'FEED HELP',
      ],
      [
        [
          ['feed', 'redrive', '-h'],
          ['feed', 'redrive', '--help'],
          ['feed', 'help', 'redrive'],
        ],
        'REDRIVE HELP',
      ],
      [
        [
          ['prune', '-h'],
          ['prune', '--help'],
          ['help', 'prune'],
        ],
        'PRUNE HELP',
      ],
    ];
    for (const [ways, help] of asked) {
      for (const argv of ways) {
        const { result, out, err, error } = await run(argv);
        expect({ argv, error, result, out, err }).toEqual({
          argv,
          error: undefined,
          result: undefined,
          out: [help],
          err: [],
        });
      }
    }
  });

  it('when no command, an unknown one, an unknown option or a bad value is given, then a UsageError carries the help of the command called; nothing is written and nothing exits', async () => {
    const cases: [string[], string, string][] = [
      [[], 'no command given', 'MAIN HELP'],
      [['serv'], 'unknown command: serv', 'MAIN HELP'],
      [['help', 'serv'], 'unknown command: serv', 'MAIN HELP'],
      [['feed'], 'no command given', 'FEED HELP'],
      [['feed', 'redrive', '--bogus'], "unknown option '--bogus'", 'REDRIVE HELP'],
      [['feed', 'redrive', '1', '2'], 'too many arguments', 'REDRIVE HELP'],
      [['feed', 'redrive'], 'needs an id', 'REDRIVE HELP'],
      [
        ['prune', '--max-batches', '0'],
        '--max-batches must be a whole number from 1 to 10 (got 0)',
        'PRUNE HELP',
      ],
      [['prune', '--max-batches'], "option '--max-batches <N>' argument missing", 'PRUNE HELP'],
    ];
    for (const [argv, message, help] of cases) {
      const { error, out, err } = await run(argv);
      expect(error, argv.join(' ')).toBeInstanceOf(UsageError);
      expect((error as UsageError).message, argv.join(' ')).toContain(message);
      expect((error as UsageError).help, argv.join(' ')).toBe(help);
      expect([out, err]).toEqual([[], []]);
    }
  });

  it('when a command runs, then it gets its arguments and options (camelCase, parsed, repeatable ones as lists) and its result is answered; what it throws is thrown on', async () => {
    expect((await run(['feed', 'pause', 'for', 'maintenance'])).result).toEqual({
      args: ['for', 'maintenance'],
      options: {},
    });
    expect(
      (await run(['prune', '--max-batches', '3', '--date', 'a', '--date=b', '--dry-run'])).result,
    ).toEqual({ maxBatches: 3, date: ['a', 'b'], dryRun: true });
    const failing: CommandDescription = {
      name: 'x',
      help: 'X',
      run: () => Promise.reject(new NotDone('not yet')),
    };
    await expect(runCommand(failing, [], { out: () => {}, err: () => {} })).rejects.toThrow(
      NotDone,
    );
  });

  it('when a lazy command is neither called nor its help asked for, then its module is not loaded', async () => {
    const loaded: string[] = [];
    await run(['--help'], loaded);
    await run(['prune', '--dry-run'], loaded);
    expect(loaded).toEqual(['prune']);
  });

  it('when options are only read, then their values come back, and words that are off are a UsageError', () => {
    const options = [{ flags: '--port <n>' }, { flags: '--demo' }];
    expect(readOptions(options, ['--port', '1', '--demo'])).toEqual({ port: '1', demo: true });
    expect(() => readOptions(options, ['--bogus'])).toThrow(UsageError);
  });
});
