/**
 * npm run export-quarantine -- --out <folder> [--since <ISO time>] [--id <N>] [--public-key <hex, PEM or file>]
 *
 * Writes quarantined_deliveries rows as captured-delivery files (docs/captured-fixtures.md) whose
 * `expected` is the target after a fix (200 stored): review it. Database: DATABASE_URL, else the
 * embedded one (a running receiver's, or started here). Key: --public-key, else the receiver's
 * own (SIGNING_KEY, or fetched from SIGNING_KEY_URL / PROVIDER_ENV). See docs/tools.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exportQuarantine } from './export-quarantine.ts';
import { openToolDatabase } from '../../src/storage/operator-database.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import {
  checkKeyUrl,
  DEFAULT_MAX_KEY_BYTES,
  fetchSigningKey,
} from '../../src/verification/key-fetch.ts';
import { parsePublicKey } from '../../src/verification/public-key.ts';

const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const USAGE =
  'usage: npm run export-quarantine -- --out <folder> [--since <ISO time>] [--id <N>] [--public-key <hex, PEM or file>]';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      since: { type: 'string' },
      id: { type: 'string' },
      'public-key': { type: 'string' },
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
    (values.id && !/^\d+$/.test(values.id))
  ) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig(process.env, { receivesDeliveries: false });
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  const publicKey = await loadKey(values['public-key'], config);
  const database = await openToolDatabase(config, logger, PROJECT_DIR);
  try {
    const result = await exportQuarantine(database.db, {
      outDir: values.out,
      publicKey,
      ...(since && { since }),
      ...(values.id !== undefined && { id: values.id }),
    });
    for (const { id, file } of result.written) console.log(`wrote    ${id}: ${file}`);
    for (const { id, reason } of result.skipped) console.log(`skipped  ${id}: ${reason}`);
    console.log(`${result.written.length} written, ${result.skipped.length} skipped`);
    return result.skipped.some((skip) => skip.kind === 'key') ? 1 : 0;
  } finally {
    await database.close();
  }
}

async function loadKey(given: string | undefined, config: Config) {
  if (given !== undefined)
    return parsePublicKey(existsSync(given) ? readFileSync(given, 'utf8') : given);
  if (config.signingKey.kind === 'configured') return parsePublicKey(config.signingKey.text);
  return fetchSigningKey(checkKeyUrl(config.signingKey.url, config.signingKey.allowHttp), {
    timeoutMs: config.signingKey.fetchTimeoutMs,
    maxBytes: DEFAULT_MAX_KEY_BYTES,
    fetchImpl: fetch,
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`export failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
