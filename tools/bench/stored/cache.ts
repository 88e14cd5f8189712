import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { withClient } from '../core/postgres.ts';
import { literal } from './catalog.ts';
import { withHeartbeat, type Progress } from './progress.ts';
import type { SeedReport } from './seed.ts';

/**
 * The seeded database is kept between runs (seeding 2 million deliveries takes minutes) as
 * `benchcache_stored_<N>`, with a marker in its COMMENT saying what it holds: the number of
 * deliveries, the schema they were written under (a digest of every migration's name and text)
 * and the seeding's format. A run reuses it when all three match, and seeds it again when the
 * schema changed, when an earlier seeding was interrupted (no marker), or on --reseed. The run
 * never measures on it directly: it measures on a copy (cloneStoredDatabase), so the cache stays exactly
 * as seeded. A change to how the receiver writes rows that no migration records needs --reseed.
 */

/** Bump when the seeding writes something different for the same schema. */
export const SEED_FORMAT = 1;

export interface CacheMarker {
  format: number;
  deliveries: number;
  /** SHA-256 of the migrations: file names and contents, in name order. */
  schema: string;
  seededAt: string;
  /** The receiver's commit that stored the template. */
  commit: string;
  templateDeliveries: number;
  seedSeconds: number;
}

export interface StoredCache {
  name: string;
  marker: CacheMarker;
  reused: boolean;
  sizeBytes: number;
}

function cacheName(deliveries: number): string {
  return `benchcache_stored_${deliveries}`;
}

function schemaFingerprint(projectDir: string): string {
  const dir = join(projectDir, 'migrations');
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).sort()) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(dir, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

export type ReuseDecision = { reuse: true } | { reuse: false; reason: string };

/** Whether a database found under the cache's name can be measured as it is. */
export function decideReuse(
  found: { exists: boolean; marker: CacheMarker | undefined },
  wanted: { deliveries: number; schema: string },
  reseed: boolean,
): ReuseDecision {
  if (!found.exists) return { reuse: false, reason: 'none kept yet' };
  if (reseed) return { reuse: false, reason: '--reseed' };
  const { marker } = found;
  if (!marker) return { reuse: false, reason: 'the kept one was never finished (no marker)' };
  if (marker.format !== SEED_FORMAT) {
    return { reuse: false, reason: `seeded by an older harness (format ${marker.format})` };
  }
  if (marker.deliveries !== wanted.deliveries) {
    return { reuse: false, reason: `it holds ${marker.deliveries} deliveries` };
  }
  if (marker.schema !== wanted.schema) {
    return { reuse: false, reason: 'the migrations changed since it was seeded' };
  }
  return { reuse: true };
}

interface EnsureInput {
  adminUrl: string;
  deliveries: number;
  reseed: boolean;
  projectDir: string;
  commit: string;
  /** Fills the freshly created database. */
  seed(database: string): Promise<SeedReport>;
  progress: Progress;
}

export async function ensureStoredDatabase(input: EnsureInput): Promise<StoredCache> {
  const name = cacheName(input.deliveries);
  const schema = schemaFingerprint(input.projectDir);
  return withClient(input.adminUrl, async (admin) => {
    // Two runs at once would seed the same database: the second waits for the first.
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    const found = await readMarker(admin, name);
    const decision = decideReuse(found, { deliveries: input.deliveries, schema }, input.reseed);
    if (decision.reuse && found.marker) {
      const sizeBytes = await databaseSize(admin, name);
      input.progress(
        `reusing ${name}: ${found.marker.deliveries.toLocaleString('en-US')} deliveries seeded ` +
          `${found.marker.seededAt} at ${found.marker.commit}, same migrations ` +
          `(${(sizeBytes / 1e9).toFixed(2)} GB); --reseed to seed it again`,
      );
      return { name, marker: found.marker, reused: true, sizeBytes };
    }
    input.progress(
      `seeding ${name} with ${input.deliveries.toLocaleString('en-US')} deliveries ` +
        `(${decision.reuse ? '' : decision.reason})`,
    );
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    const started = performance.now();
    const report = await input.seed(name);
    const marker: CacheMarker = {
      format: SEED_FORMAT,
      deliveries: report.deliveries,
      schema,
      seededAt: new Date().toISOString(),
      commit: input.commit,
      templateDeliveries: report.templateDeliveries,
      seedSeconds: Math.round((performance.now() - started) / 1000),
    };
    // Written last: a seeding cut short leaves a database without it, seeded again next time.
    await admin.query(`COMMENT ON DATABASE ${name} IS ${literal(JSON.stringify(marker))}`);
    const sizeBytes = await databaseSize(admin, name);
    input.progress(
      `seeded ${name} in ${marker.seedSeconds} s (${(sizeBytes / 1e9).toFixed(2)} GB); ` +
        'kept for later runs',
    );
    return { name, marker, reused: false, sizeBytes };
  });
}

async function readMarker(
  admin: pg.Client,
  name: string,
): Promise<{ exists: boolean; marker: CacheMarker | undefined }> {
  const result = await admin.query<{ comment: string | null }>(
    `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
    [name],
  );
  const row = result.rows[0];
  if (!row) return { exists: false, marker: undefined };
  try {
    return {
      exists: true,
      marker: row.comment ? (JSON.parse(row.comment) as CacheMarker) : undefined,
    };
  } catch {
    return { exists: true, marker: undefined };
  }
}

async function databaseSize(admin: pg.Client, name: string): Promise<number> {
  const result = await admin.query<{ bytes: string }>(
    'SELECT pg_database_size($1)::text AS bytes',
    [name],
  );
  return Number(result.rows[0]?.bytes ?? 0);
}

/**
 * A copy of the kept database for this run to measure on (and write to). FILE_COPY copies the
 * files as they are (visibility maps, statistics, index layout), without writing them to WAL.
 */
export async function cloneStoredDatabase(
  adminUrl: string,
  cache: string,
  clone: string,
  progress: Progress,
): Promise<void> {
  await withHeartbeat(progress, `copying ${cache} to ${clone}`, () =>
    withClient(adminUrl, (client) =>
      client.query(`CREATE DATABASE ${clone} TEMPLATE ${cache} STRATEGY FILE_COPY`),
    ),
  );
}
