// For tools/edge-attacks until it imports ./core/postgres.ts itself.
export { databaseUrl, withClient } from './core/postgres.ts';
