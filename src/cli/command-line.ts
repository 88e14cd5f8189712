import type { CommandDescription, OperatorIo } from '../lib/command-line/command-description.ts';
import { runCommand } from '../lib/command-line/run-command.ts';
import { exitCodeOf } from './exit-codes.ts';

interface CommandEntry {
  name: string;
  summary: string;
  /** How a failure at run time begins on stderr. */
  failedTo: string;
  /** The command's module, loaded only when the command is called or its help asked for. */
  load: () => Promise<{ command: (io: OperatorIo) => CommandDescription }>;
}

const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'serve',
    summary: 'run the webhook receiver (npm start; --dotenv <file>)',
    failedTo: 'receiver failed to start',
    load: () => import('./serve.ts'),
  },
  {
    name: 'migrate',
    summary: 'bring the database to the latest migration, then exit',
    failedTo: 'migration failed',
    load: () => import('./migrate.ts'),
  },
  {
    name: 'feed',
    summary: "operate the feed's push relay: status, dead letters, redrive, pause",
    failedTo: 'feed command failed',
    load: () => import('./feed.ts'),
  },
  {
    name: 'provider',
    summary: "call the platform's API: PayID, wallets, refunds, reports, resends",
    failedTo: 'provider command failed',
    load: () => import('./provider.ts'),
  },
  {
    name: 'recover',
    summary: 'ask the platform to resend what the receiver missed; unmatched PayTo receipts',
    failedTo: 'recovery failed',
    load: () => import('./recover.ts'),
  },
  {
    name: 'quarantine',
    summary: 'list, show, re-drive and resolve the deliveries the receiver refused and kept',
    failedTo: 'quarantine command failed',
    load: () => import('./quarantine.ts'),
  },
  {
    name: 'prune',
    summary: 'remove what is older than its retention, as the scheduled prune does',
    failedTo: 'prune failed',
    load: () => import('./prune.ts'),
  },
];

const USAGE = [
  'usage: main <command> [options]     (main <command> --help for its options)',
  '',
  ...COMMANDS.map((command) => `  ${command.name.padEnd(12)}${command.summary}`),
  '',
  'npm scripts: npm start = main serve --dotenv .env; npm run <command> -- [options] for the',
  'others. In the image: node dist/src/cli/main.js <command> [options].',
  '',
  'Exit 0: done; 1: a failure at run time (run it again once the cause is fixed); 2: bad usage',
  'or configuration (nothing ran).',
].join('\n');

/**
 * The one command line, `main.ts <command> [options]`, run in this process: the command's output
 * and problems go to `io`. Answers the exit code (src/cli/exit-codes.ts), or 'serving' once the
 * receiver listens (it exits by its own shutdown). Never throws.
 */
export function runCommandLine(
  argv: readonly string[],
  io: OperatorIo,
): Promise<number | 'serving'> {
  const program: CommandDescription = {
    name: 'main',
    help: USAGE,
    commands: COMMANDS.map((entry) => ({
      name: entry.name,
      load: async () => (await entry.load()).command(io),
    })),
  };
  const failedTo = COMMANDS.find((entry) => entry.name === argv[0])?.failedTo ?? 'failed';
  return exitCodeOf(runCommand(program, argv, io), failedTo, io.err);
}
