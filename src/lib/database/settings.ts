import { z } from 'zod';
import { flag, integer } from '../config/kinds.ts';
import { defineSection, type OutputOf } from '../config/section.ts';
import { variable } from '../config/variable.ts';

/** The receiver's database: where it is, its pool and its timeouts. */
export const databaseSettings = defineSection({
  variables: {
    /** Unset means: start the embedded Postgres. */
    databaseUrl: variable(
      'DATABASE_URL',
      z
        .string()
        .trim()
        .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
        .optional(),
      {
        doc: 'Postgres 15+ URL. Unset: embedded Postgres (below)',
        secret: true,
        example: 'postgres://receiver:secret@db.internal:5432/receiver',
        section: 'Database',
      },
    ),
    databasePoolMax: variable('DATABASE_POOL_MAX', integer(1, 1000).default(10), {
      doc: 'connections per instance',
    }),
    /** Off where a migration job runs first: the receiver then only checks the schema is current. */
    migrateOnStart: variable('MIGRATE_ON_START', flag.default(true), {
      doc: 'apply migrations at start; `false` where a migration job runs first (the receiver then only checks the schema is current, and exits 2 if not)',
    }),
    databaseConnectionTimeoutMs: variable(
      'DATABASE_CONNECTION_TIMEOUT_MS',
      integer(100, 120_000).default(5000),
      {
        doc: 'give up connecting after this long: a dead database becomes a 500 (retried), not a hang',
      },
    ),
    databaseStatementTimeoutMs: variable(
      'DATABASE_STATEMENT_TIMEOUT_MS',
      integer(100, 600_000).default(10_000),
      { doc: 'server-side statement timeout for deliveries (migrations run without it)' },
    ),
  },
});

/** A real Postgres under the project folder, for a development machine without DATABASE_URL. */
export const embeddedPostgresSettings = defineSection({
  variables: {
    dir: variable('EMBEDDED_POSTGRES_DIR', z.string().trim().min(1).default('.data/postgres'), {
      doc: "embedded cluster's data, relative to the project",
      developmentOnly: true,
    }),
    port: variable('EMBEDDED_POSTGRES_PORT', integer(1, 65_535).default(54329), {
      doc: "embedded cluster's port (localhost only)",
      developmentOnly: true,
    }),
  },
  read: (embeddedPostgres) => ({ embeddedPostgres }),
});

/** What opening the database reads: DATABASE_URL (or the embedded Postgres) and its pool. */
export type DatabaseConfig = OutputOf<typeof databaseSettings> &
  OutputOf<typeof embeddedPostgresSettings>;
