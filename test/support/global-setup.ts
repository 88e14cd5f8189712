import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../tools/common/free-port.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startEmbeddedPostgres } from '../../src/lib/database/embedded-postgres.ts';
import { createMigratedTemplate } from './migrated-template.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A Postgres URL allowed to create and drop databases; each test file makes its own. */
    adminDatabaseUrl: string;
    /** A database migrated to the latest migration once per run: files copy it (TEMPLATE). */
    templateDatabase: string;
  }
}

/**
 * One Postgres for the whole run: the machine's own when TEST_DATABASE_URL is set, otherwise an
 * embedded one in a fresh temporary folder (world-traversable, since as root it runs as the
 * `postgres` user), removed afterwards.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    project.provide('adminDatabaseUrl', external);
    const template = await createMigratedTemplate(external);
    project.provide('templateDatabase', template.name);
    return () => template.drop();
  }

  const dir = mkdtempSync(path.join(tmpdir(), 'receiver-test-'));
  chmodSync(dir, 0o755);
  const embedded = await startEmbeddedPostgres({
    dataDir: dir,
    port: await freePort(),
    logger: createLogger('silent'),
    ephemeral: true,
  });
  project.provide('adminDatabaseUrl', embedded.url);
  const template = await createMigratedTemplate(embedded.url);
  project.provide('templateDatabase', template.name);
  return async () => {
    await template.drop();
    await embedded.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
