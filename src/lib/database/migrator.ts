import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Logger } from '../logger.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations', import.meta.url));

/**
 * Brings the schema to the latest migration. Safe to run from several instances at once:
 * Kysely's migrator holds a lock while it works. Throws when any step fails.
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  logger: Logger,
  dir = MIGRATIONS_DIR,
): Promise<void> {
  const migrator = createMigrator(db, dir);
  // Every migration this release knows is applied (a newer release may have migrated further,
  // during a rolling upgrade or after a rollback): nothing to do, and nothing to refuse.
  if ((await migrator.getMigrations()).every((m) => m.executedAt !== undefined)) return;
  const { error, results } = await migrator.migrateToLatest();
  for (const result of results ?? []) {
    const fields = { migration: result.migrationName, direction: result.direction };
    if (result.status === 'Success') logger.info(fields, 'migration applied');
    if (result.status === 'Error') logger.error(fields, 'migration failed');
  }
  if (error) {
    throw error instanceof Error ? error : new Error(`migration failed: ${String(error)}`);
  }
}

/** The project's migrator (tests use it to stop at an earlier migration). */
export function createMigrator<DB>(db: Kysely<DB>, dir = MIGRATIONS_DIR): Migrator {
  return new Migrator({
    // Migrations see the schema as it was then, not as Database types it now: the Migrator
    // takes any Kysely.
    db,
    provider: migrationsIn(dir),
  });
}

/**
 * The pool's statement timeout (DATABASE_STATEMENT_TIMEOUT_MS) is for deliveries; a migration
 * backfilling a large table may take longer, and failing it would stop every start-up. Postgres
 * runs the migrations in one transaction, so SET LOCAL lifts the limit for it alone.
 */
function withoutStatementTimeout(step: Migration['up']): Migration['up'] {
  return async (db) => {
    await sql`SET LOCAL statement_timeout = 0`.execute(db);
    await step(db);
  };
}

/**
 * Like Kysely's FileMigrationProvider, but the import happens here, in project code, so that
 * whatever runs the project's TypeScript (tsx, vitest) also loads the `.ts` migrations.
 */
function migrationsIn(dir: string): MigrationProvider {
  return {
    async getMigrations() {
      const files = (await readdir(dir)).filter((file) => /\.(ts|js|mjs)$/.test(file)).sort();
      const migrations: Record<string, Migration> = {};
      for (const file of files) {
        const module = (await import(pathToFileURL(path.join(dir, file)).href)) as Migration;
        migrations[file.replace(/\.(ts|js|mjs)$/, '')] = {
          up: withoutStatementTimeout(module.up),
          ...(module.down && { down: withoutStatementTimeout(module.down) }),
        };
      }
      return migrations;
    },
  };
}

/**
 * For whatever does not migrate (an operator command, or the receiver with MIGRATE_ON_START=false:
 * a migration job runs first): throws when a migration this release knows has not been applied.
 * A schema newer than this release (a later release migrated it, and this one is still rolling)
 * is fine: migrations keep the previous release working.
 */
export async function assertMigrated<DB>(
  db: Kysely<DB>,
  dir = MIGRATIONS_DIR,
  options: { orElse?: string } = {},
): Promise<void> {
  const migrations = await createMigrator(db, dir).getMigrations();
  const pending = migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
  if (pending.length > 0) {
    throw new SchemaBehindError(pending, options.orElse);
  }
}

/** The schema is behind the release: a configuration fault (exit 2), fixed by migrating. */
export class SchemaBehindError extends Error {
  constructor(
    readonly pending: readonly string[],
    /** Another way out, for the receiver: ", or start with MIGRATE_ON_START=true". */
    orElse = '',
  ) {
    super(
      `the database lacks ${pending.length} migration(s) this release needs (${pending.join(', ')}): run \`npm run migrate\` (the migration job; in the image: npm run migrate:prod) first${orElse}`,
    );
    this.name = 'SchemaBehindError';
  }
}
