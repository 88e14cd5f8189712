import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { ConfigError } from '../../../src/lib/config/config-error.ts';

/** The RETENTION_* variables: safe defaults that are on, 0 to keep a kind for ever, bad values named. */
const SECRET = { WEBHOOK_SECRETS: 'Basic abc' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...SECRET, ...env });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
}

describe('retention configuration', () => {
  it('when nothing is set, then raw requests are kept 90 days, sent feed events 30, feed attempts 30, recovery records 90, pruned hourly in batches of 1000', () => {
    expect(loadConfig(SECRET).retention).toEqual({
      rawDays: 90,
      feedDays: 30,
      feedAttemptsDays: 30,
      recoveryDays: 90,
      intervalMs: 3_600_000,
      batchSize: 1000,
      batchPauseMs: 100,
      runMaxMs: 300_000,
    });
  });

  it('when each is set, then each is used; 0 keeps that kind for ever (or turns the schedule off)', () => {
    const config = loadConfig({
      ...SECRET,
      RETENTION_RAW_DAYS: '0',
      RETENTION_FEED_DAYS: '7',
      RETENTION_FEED_ATTEMPTS_DAYS: '3',
      RETENTION_RECOVERY_DAYS: '365',
      RETENTION_INTERVAL_MS: '0',
      RETENTION_BATCH_SIZE: '200',
      RETENTION_BATCH_PAUSE_MS: '0',
      RETENTION_RUN_MAX_MS: '60000',
    });
    expect(config.retention).toEqual({
      rawDays: 0,
      feedDays: 7,
      feedAttemptsDays: 3,
      recoveryDays: 365,
      intervalMs: 0,
      batchSize: 200,
      batchPauseMs: 0,
      runMaxMs: 60_000,
    });
  });

  it('when values are out of range or not numbers, then each variable is named', () => {
    const named = problems({
      RETENTION_RAW_DAYS: '-1',
      RETENTION_FEED_DAYS: 'thirty',
      RETENTION_FEED_ATTEMPTS_DAYS: '-3',
      RETENTION_RECOVERY_DAYS: '1.5',
      RETENTION_BATCH_SIZE: '0',
      RETENTION_RUN_MAX_MS: '10',
    }).map((problem) => problem.split(':')[0]);
    expect(named.sort()).toEqual([
      'RETENTION_BATCH_SIZE',
      'RETENTION_FEED_ATTEMPTS_DAYS',
      'RETENTION_FEED_DAYS',
      'RETENTION_RAW_DAYS',
      'RETENTION_RECOVERY_DAYS',
      'RETENTION_RUN_MAX_MS',
    ]);
  });
});
