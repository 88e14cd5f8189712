import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { MachineFacts } from '../machine.ts';
import { updateMarkedSection, type Markers } from '../markers.ts';
import type { BenchOptions } from '../options.ts';
import type { PostgresFacts } from '../postgres.ts';
import type { MemoryStats } from '../proc-stats.ts';
import { withoutPassword } from '../publish.ts';
import type { StoredCache } from './cache.ts';
import type { StorageFacts } from './database-facts.ts';
import type { IdleWindow } from './idle.ts';
import type { StoredPhaseRecord } from './load-rounds.ts';
import { renderStored } from './report.ts';
import type { SeedReport } from './seed.ts';
import type { StoredSummary } from './summary.ts';

/** The --stored results section of docs/benchmark.md (the normal run has its own). */
export const STORED_MARKERS: Markers = {
  start: '<!-- bench-stored:start -->',
  end: '<!-- bench-stored:end -->',
};

export interface StoredResult {
  startedAt: Date;
  finishedAt: Date;
  machine: MachineFacts;
  code: { commit: string; uncommittedChanges: boolean };
  postgres: PostgresFacts;
  options: BenchOptions;
  cache: StoredCache;
  /** When this run seeded the database: how (tables, keys, timings). */
  seed: SeedReport | undefined;
  largeAtStart: StorageFacts;
  records: StoredPhaseRecord[];
  idle: IdleWindow[];
  memory: Record<'empty' | 'large', MemoryStats>;
  summary: StoredSummary;
}

/**
 * Prints the report, writes everything measured to .data/bench/stored.json (git-ignored), and
 * rewrites the --stored section of docs/benchmark.md unless --no-docs.
 */
export async function publishStored(input: {
  projectDir: string;
  benchDir: string;
  result: StoredResult;
  log: (line: string) => void;
}): Promise<void> {
  const { result, log, projectDir } = input;
  const report = renderStored(result);
  log(`\n${report}\n`);
  const options = {
    ...result.options,
    adminDatabaseUrl: withoutPassword(result.options.adminDatabaseUrl),
  };
  const jsonPath = join(input.benchDir, 'stored.json');
  writeFileSync(jsonPath, `${JSON.stringify({ ...result, options }, null, 2)}\n`);
  log(`JSON: ${relative(projectDir, jsonPath)}`);
  if (!result.options.writeDocs) {
    log('documents not updated (--no-docs)');
    return;
  }
  const path = join(projectDir, 'docs', 'benchmark.md');
  const written = await updateMarkedSection(path, report, projectDir, STORED_MARKERS);
  log(
    written
      ? 'updated between the bench-stored markers: docs/benchmark.md'
      : 'docs/benchmark.md has no bench-stored markers: not updated',
  );
}
