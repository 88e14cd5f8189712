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
 * row (saying where it looked and how to give one) or on bad usage. See docs/tools.md.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
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
import { loadOperatorConfig, type Config } from '../../src/cli/config.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { checkKeyUrl, DEFAULT_MAX_KEY_BYTES, fetchSigningKey } from '../../src/receiver/index.ts';

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const USAGE =
  'usage: npm run export-quarantine -- --out <folder> [--since <ISO time>] [--id <N>] [--public-key <hex, PEM or file> | --key-file <file>]';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      since: { type: 'string' },
      id: { type: 'string' },
      'public-key': { type: 'string' },
      'key-file': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const since = values.since === undefined ? undefined : new Date(values.since);
  if (
    !values.out ||
    (since && Number.isNaN(since.getTime())) ||
    (values.id && !/^\d+$/.test(values.id)) ||
    (values['public-key'] !== undefined && values['key-file'] !== undefined)
  ) {
    console.error(USAGE);
    return 2;
  }
  const config = loadOperatorConfig(process.env);
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  // A key given is read before the database is opened: a typo fails fast.
  const named = (flag: string) => (error: unknown) => {
    throw new Error(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
  };
  const given =
    values['key-file'] !== undefined
      ? await keyFromFile(values['key-file']).catch(named('--key-file'))
      : values['public-key'] !== undefined
        ? await givenKey(values['public-key']).catch(named('--public-key'))
        : undefined;
  const database = await openToolDatabase(config, logger, PROJECT_DIR);
  try {
    const filter = { ...(since && { since }), ...(values.id !== undefined && { id: values.id }) };
    const fingerprints = await quarantinedFingerprints(database.db, filter).catch(
      (error: unknown) => {
        // 42P01: no such table. A database the receiver has never run on (a fresh clone).
        if ((error as { code?: unknown }).code !== '42P01') throw error;
        throw new Error(
          `${config.databaseUrl ? 'DATABASE_URL' : 'the embedded database'} has no quarantined_deliveries table: the receiver has not run on it. Run \`npm run migrate\` (or the receiver) first, or set DATABASE_URL to the receiver's database`,
        );
      },
    );
    const attempts = given ? [] : await keysAtHand(fingerprints, config);
    const keys = given ? [given] : attempts.flatMap((a) => (a.key ? [a.key] : []));
    const result = await exportQuarantine(database.db, {
      outDir: values.out,
      publicKey: given ?? keys,
      ...filter,
    });
    for (const { id, file } of result.written) console.log(`wrote    ${id}: ${file}`);
    for (const { id, reason } of result.skipped) console.log(`skipped  ${id}: ${reason}`);
    console.log(`${result.written.length} written, ${result.skipped.length} skipped`);
    const keyless = result.skipped.filter((skip) => skip.kind === 'key');
    if (keyless.length === 0) return 0;
    if (given) {
      console.error(
        'the key given does not verify those rows (the platform rotated its key since?): give the key of their time with --public-key or --key-file, or leave both out to look for the key each row names',
      );
      return 1;
    }
    const verifiedBy = unmatched(fingerprints, keys).map((f) =>
      f === null ? 'unknown' : short(f),
    );
    console.error(
      [
        `export-quarantine: no key for ${keyless.length} row(s) (${verifiedBy.length > 0 ? `verified by ${verifiedBy.join(', ')}` : 'the key each names does not verify it'}). Tried:`,
        ...attempts.map((a) => `  ${a.source}: ${a.outcome}`),
        HOW_TO_GIVE_A_KEY,
      ].join('\n'),
    );
    return 2;
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

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`export failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
