import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { inject } from 'vitest';
import { PROJECT_DIR } from './receiver-process.ts';
import { databaseUrl } from './test-database.ts';
import { withAdmin } from './migrated-template.ts';

/**
 * A database with deploy/sql/roles.sql's three roles under a per-run prefix (the file's
 * monoova.role_prefix setting), so test files never share roles: connect as each, apply the
 * file, and answer a statement's SQLSTATE.
 */
type RoleName = 'owner' | 'receiver' | 'reader';
export const INSUFFICIENT_PRIVILEGE = '42501';

export interface RolesDatabase {
  name: string;
  role: Record<RoleName, string>;
  url(role: RoleName | 'admin'): string;
  /** roles.sql, as the administrator (with passwords) or as the owner role. */
  applyRoles(as: 'admin' | 'owner'): Promise<void>;
  withClient<T>(as: RoleName | 'admin', work: (client: pg.Client) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

const ROLES_SQL = path.join(PROJECT_DIR, 'deploy/sql/roles.sql');

export async function createRolesDatabase(): Promise<RolesDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const prefix = `monoova_t${randomBytes(4).toString('hex')}`;
  const name = `receiver_roles_${randomBytes(6).toString('hex')}`;
  const role: Record<RoleName, string> = {
    owner: `${prefix}_owner`,
    receiver: `${prefix}_receiver`,
    reader: `${prefix}_feed_reader`,
  };
  const password: Record<RoleName, string> = {
    owner: randomBytes(12).toString('hex'),
    receiver: randomBytes(12).toString('hex'),
    reader: randomBytes(12).toString('hex'),
  };
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = (as: RoleName | 'admin') => {
    const address = new URL(databaseUrl(adminUrl, name));
    if (as !== 'admin') {
      address.username = role[as];
      address.password = password[as];
    }
    return address.toString();
  };
  return {
    name,
    role,
    url,
    applyRoles: async (as) => {
      const settings = [`SET monoova.role_prefix = '${prefix}';`];
      if (as === 'admin') {
        settings.push(
          `SET monoova.owner_password = '${password.owner}';`,
          `SET monoova.receiver_password = '${password.receiver}';`,
          `SET monoova.feed_reader_password = '${password.reader}';`,
        );
      }
      await withAdmin(url(as), (client) =>
        client.query(`${settings.join('\n')}\n${readFileSync(ROLES_SQL, 'utf8')}`),
      );
    },
    withClient: (as, work) => withAdmin(url(as), work),
    drop: async () => {
      await withAdmin(adminUrl, async (admin) => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        for (const each of Object.values(role)) await admin.query(`DROP ROLE IF EXISTS ${each}`);
      });
    },
  };
}

/** The SQLSTATE a statement fails with, or 'ok' (inside a savepoint, so the session goes on). */
export async function outcome(client: pg.Client, text: string, params?: unknown[]) {
  await client.query('SAVEPOINT attempt');
  try {
    await client.query(text, params);
    await client.query('RELEASE SAVEPOINT attempt');
    return 'ok';
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT attempt');
    return (error as { code?: string }).code ?? String(error);
  }
}
