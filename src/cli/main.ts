/**
 * The one command line: `main.ts <command> [options]` (`node dist/src/cli/main.js` in the image).
 * Every npm script (start, migrate, provider, recover, feed, quarantine, prune) comes through
 * here. A command's module is loaded only when it is asked for: `migrate` never loads Express.
 * Exit codes, for every command alike: src/cli/exit-codes.ts (0 done, 1 a failure at run time,
 * 2 bad usage or configuration).
 */
import { EXIT_OK, failureOf } from './exit-codes.ts';
import { UsageError } from '../lib/usage-error.ts';
import type { OperatorIo } from '../lib/command-options.ts';
import { projectDir } from '../lib/project-dir.ts';

interface CommandEntry {
  summary: string;
  /** How a failure at run time begins on stderr. */
  failedTo: string;
  /** The command's module. Its `run` answers the exit code, or 'serving' (the process lives on). */
  load: () => Promise<{ run: (io: OperatorIo) => Promise<number | 'serving'> }>;
}

const COMMANDS: Record<string, CommandEntry> = {
  serve: {
    summary: 'run the webhook receiver (npm start; --dotenv <file>)',
    failedTo: 'receiver failed to start',
    load: () => import('./serve.ts'),
  },
  migrate: {
    summary: 'bring the database to the latest migration, then exit',
    failedTo: 'migration failed',
    load: () => import('./migrate.ts'),
  },
  feed: {
    summary: "operate the feed's push relay: status, dead letters, redrive, pause",
    failedTo: 'feed command failed',
    load: () => import('./feed.ts'),
  },
  provider: {
    summary: "call the platform's API: PayID, wallets, refunds, reports, resends",
    failedTo: 'provider command failed',
    load: () => import('./provider.ts'),
  },
  recover: {
    summary: 'ask the platform to resend what the receiver missed; unmatched PayTo receipts',
    failedTo: 'recovery failed',
    load: () => import('./recover.ts'),
  },
  quarantine: {
    summary: 'list, show, re-drive and resolve the deliveries the receiver refused and kept',
    failedTo: 'quarantine command failed',
    load: () => import('./quarantine.ts'),
  },
  prune: {
    summary: 'remove what is older than its retention, as the scheduled prune does',
    failedTo: 'prune failed',
    load: () => import('./prune.ts'),
  },
};

const USAGE = [
  'usage: main <command> [options]     (main <command> --help for its options)',
  '',
  ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(12)}${command.summary}`),
  '',
  'npm scripts: npm start = main serve --dotenv .env; npm run <command> -- [options] for the',
  'others. In the image: node dist/src/cli/main.js <command> [options].',
  '',
  'Exit 0: done; 1: a failure at run time (run it again once the cause is fixed); 2: bad usage',
  'or configuration (nothing ran).',
].join('\n');

const io: Omit<OperatorIo, 'argv'> = {
  env: process.env,
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  projectDir: projectDir(),
};

const [name, ...argv] = process.argv.slice(2);
const command = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;

async function main(): Promise<number | 'serving'> {
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(USAGE);
    return EXIT_OK;
  }
  if (command === undefined) {
    throw new UsageError(
      name === undefined ? 'no command given' : `unknown command: ${name}`,
      USAGE,
    );
  }
  const { run } = await command.load();
  return run({ ...io, argv });
}

main().then(
  // 'serving': the receiver exits by its own shutdown (SIGTERM, SIGINT), with its own code.
  (code) => {
    if (code !== 'serving') process.exit(code);
  },
  (error: unknown) => {
    const failure = failureOf(error, command?.failedTo ?? 'failed');
    process.stderr.write(`${failure.text}\n`);
    process.exit(failure.code);
  },
);
