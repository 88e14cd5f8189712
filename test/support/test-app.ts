import type { KeyObject } from 'node:crypto';
import type { Express } from 'express';
import { createApp, type AppDeps } from '../../src/receiver/http/app.ts';
import { logLines } from './log-lines.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { Db } from '../../src/lib/database/database.ts';
import {
  createConfiguredKeySource,
  type SigningKeySource,
} from '../../src/receiver/verification/key-source.ts';

export interface TestApp {
  app: Express;
  /** Every log line the app wrote, parsed. */
  logs: Record<string, unknown>[];
  /** The raw log text, for "this secret never appears" assertions. */
  logText(): string;
}

export interface TestAppOptions {
  db: Db;
  publicKey?: KeyObject;
  keys?: SigningKeySource;
  secrets?: string[];
  bodyLimitBytes?: number;
  trustProxy?: boolean | number | string;
  now?: () => Date;
  /** Any other app setting (budgets, timeouts). */
  config?: Partial<AppDeps['config']>;
}

export function buildTestApp(options: TestAppOptions): TestApp {
  const log = logLines();
  const keys =
    options.keys ??
    (options.publicKey
      ? createConfiguredKeySource(options.publicKey, Date.now)
      : failure('buildTestApp needs publicKey or keys'));
  const app = createApp({
    config: {
      bodyLimitBytes: options.bodyLimitBytes ?? 4 * 1024 * 1024,
      webhookSecrets: options.secrets ?? [],
      trustProxy: options.trustProxy ?? false,
      ...options.config,
    },
    db: options.db,
    keys,
    logger: createLogger('debug', log.sink),
    clock: { now: options.now ?? (() => new Date()) },
  });
  return {
    app,
    get logs() {
      return log.lines();
    },
    logText: log.text,
  };
}

function failure(message: string): never {
  throw new Error(message);
}
