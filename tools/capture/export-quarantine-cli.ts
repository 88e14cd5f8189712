/**
 * npm run export-quarantine -- --out <folder> [--since <ISO time>] [--id <N>]
 *                              [--public-key <hex, PEM or file> | --key-file <file>]
 *
 * Writes quarantined_deliveries rows as captured-delivery files (docs/captured-fixtures.md) whose
 * `expected` is the target after a fix (200 stored): review it. Database: DATABASE_URL, else the
 * embedded one (a running receiver's, or started here). Key: --public-key / --key-file, else
 * SIGNING_KEY, else the key each row was verified with, found by its fingerprint among this
 * machine's keys (the sandbox's, the fixtures') and only then fetched from SIGNING_KEY_URL /
 * PROVIDER_ENV. Exit 1 when a given key did not verify a row, 2 when no key could be found for a
 * row (saying where it looked and how to give one) or on bad usage or configuration
 * (tools/common/run-tool.ts). See docs/tools.md.
 */
import { fileURLToPath } from 'node:url';
import { exportQuarantine, quarantinedFingerprints } from './export-quarantine.ts';
import {
  givenKey,
  keyFrom,
  keyFromFile,
  HOW_TO_GIVE_A_KEY,
  localKeyFiles,
  readLocalKey,
  short,
  unmatched,
  type KeyAttempt,
} from './export-keys.ts';
import { openToolDatabase } from '../../src/lib/database/operator-database.ts';
import { ConfigError } from '../../src/lib/config/config-error.ts';
import { loadOperatorConfig, type Config } from '../../src/cli/config.ts';
import { SchemaBehindError } from '../../src/lib/database/migrator.ts';
import { NotDone, UsageError } from '../../src/lib/command-line/errors.ts';
import { runTool, toolIo } from '../common/run-tool.ts';
import { createLogger } from '../../src/lib/logger.ts';
import {
  checkKeyUrl,
  DEFAULT_MAX_KEY_BYTES,
  fetchSigningKey,
} from '../../src/receiver/signature.ts';

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const USAGE =
  'usage: npm run export-quarantine -- --out <folder> [--since <ISO time>] [--id <N>] [--public-key <hex, PEM or file> | --key-file <file>]';

function isoTime(value: string): Date {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw new UsageError(`--since: not a time: ${value}`);
  return time;
}

function rowId(value: string): string {
  if (!/^\d+$/.test(value)) throw new UsageError(`--id: not a row id: ${value}`);
  return value;
}

/**
 * Exports the rows asked for. A row no key verifies is a UsageError when no key was given (say
 * which one: where it looked and how to give one), NotDone when the key given does not verify it.
 */
async function exportRows(options: {
  out: string;
  since: Date | undefined;
  id: string | undefined;
  publicKey: string | undefined;
  keyFile: string | undefined;
}): Promise<void> {
  const { since, id } = options;
  const config = loadOperatorConfig(process.env);
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  // A key given is read before the database is opened: a typo fails fast.
  const named = (flag: string) => (error: unknown) => {
    throw new UsageError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
  };
  const given =
    options.keyFile !== undefined
      ? await keyFromFile(options.keyFile).catch(named('--key-file'))
      : options.publicKey !== undefined
        ? await givenKey(options.publicKey).catch(named('--public-key'))
        : undefined;
  const database = await openToolDatabase(config, logger, PROJECT_DIR);
  try {
    const filter = { ...(since && { since }), ...(id !== undefined && { id }) };
    const fingerprints = await quarantinedFingerprints(database.db, filter).catch(
      (error: unknown) => {
        // 42P01: no such table. A database the receiver has never run on (a fresh clone).
        if ((error as { code?: unknown }).code !== '42P01') throw error;
        throw new UsageError(
          `${config.databaseUrl ? 'DATABASE_URL' : 'the embedded database'} has no quarantined_deliveries table: the receiver has not run on it. Run \`npm run migrate\` (or the receiver) first, or set DATABASE_URL to the receiver's database`,
          '',
        );
      },
    );
    const attempts = given ? [] : await keysAtHand(fingerprints, config);
    const keys = given ? [given] : attempts.flatMap((a) => (a.key ? [a.key] : []));
    const result = await exportQuarantine(database.db, {
      outDir: options.out,
      publicKey: given ?? keys,
      ...filter,
    });
    for (const { id, file } of result.written) toolIo.out(`wrote    ${id}: ${file}`);
    for (const { id, reason } of result.skipped) toolIo.out(`skipped  ${id}: ${reason}`);
    toolIo.out(`${result.written.length} written, ${result.skipped.length} skipped`);
    const keyless = result.skipped.filter((skip) => skip.kind === 'key');
    if (keyless.length === 0) return;
    if (given) {
      throw new NotDone(
        'the key given does not verify those rows (the platform rotated its key since?): give the key of their time with --public-key or --key-file, or leave both out to look for the key each row names',
      );
    }
    const verifiedBy = unmatched(fingerprints, keys).map((f) =>
      f === null ? 'unknown' : short(f),
    );
    throw new UsageError(
      [
        `export-quarantine: no key for ${keyless.length} row(s) (${verifiedBy.length > 0 ? `verified by ${verifiedBy.join(', ')}` : 'the key each names does not verify it'}). Tried:`,
        ...attempts.map((a) => `  ${a.source}: ${a.outcome}`),
        HOW_TO_GIVE_A_KEY,
      ].join('\n'),
      '',
    );
  } finally {
    await database.close();
  }
}

/**
 * The keys the rows may have been verified with: SIGNING_KEY (the receiver's pinned key), this
 * machine's key files, and the platform's endpoint only when a row was verified by none of those
 * (so no network is needed for rows made with the sandbox (or its simulate command) or the fixtures).
 */
async function keysAtHand(
  fingerprints: readonly (string | null)[],
  config: Config,
): Promise<KeyAttempt[]> {
  const attempts: KeyAttempt[] = [];
  if (config.signingKey.kind === 'configured') {
    const text = config.signingKey.text;
    attempts.push(await keyFrom('SIGNING_KEY', () => givenKey(text)));
  }
  for (const local of localKeyFiles(PROJECT_DIR, process.env))
    attempts.push(await readLocalKey(local));
  const local = attempts.flatMap((a) => (a.key ? [a.key] : []));
  if (unmatched(fingerprints, local).length > 0 && config.signingKey.kind === 'fetched') {
    const { url, allowHttp, fetchTimeoutMs } = config.signingKey;
    attempts.push(
      await keyFrom(`the platform's key endpoint ${url} (SIGNING_KEY_URL / PROVIDER_ENV)`, () =>
        fetchSigningKey(checkKeyUrl(url, allowHttp), {
          timeoutMs: fetchTimeoutMs,
          maxBytes: DEFAULT_MAX_KEY_BYTES,
        }),
      ),
    );
  }
  return attempts;
}

await runTool(
  {
    name: 'export-quarantine',
    help: USAGE,
    options: [
      { flags: '--out <folder>' },
      { flags: '--since <time>', parse: isoTime },
      { flags: '--id <N>', parse: rowId },
      { flags: '--public-key <key>' },
      { flags: '--key-file <file>' },
    ],
    run: async ({ options }) => {
      const out = options.out as string | undefined;
      if (!out) throw new UsageError('--out is required');
      if (options.publicKey !== undefined && options.keyFile !== undefined) {
        throw new UsageError('give --public-key or --key-file, not both');
      }
      // A configuration fault (a variable, a database behind): nothing ran, and no stack trace.
      await exportRows({
        out,
        since: options.since as Date | undefined,
        id: options.id as string | undefined,
        publicKey: options.publicKey as string | undefined,
        keyFile: options.keyFile as string | undefined,
      }).catch((error: unknown) => {
        if (error instanceof ConfigError || error instanceof SchemaBehindError) {
          throw new UsageError(error.message, '');
        }
        throw error;
      });
    },
  },
  'export-quarantine failed',
);
