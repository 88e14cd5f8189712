import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Logger } from '../logger.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

/**
 * Brings the schema to the latest migration. Safe to run from several instances at once:
 * Kysely's migrator holds a lock while it works. Throws when any step fails.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>, logger: Logger): Promise<void> {
  const { error, results } = await createMigrator(db).migrateToLatest();
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
export function createMigrator<DB>(db: Kysely<DB>): Migrator {
  return new Migrator({
    // Migrations see the schema as it was then, not as Database types it now.
    db: db as unknown as Kysely<unknown>,
    provider: migrationsIn(MIGRATIONS_DIR),
  });
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
          up: module.up,
          ...(module.down && { down: module.down }),
        };
      }
      return migrations;
    },
  };
}
