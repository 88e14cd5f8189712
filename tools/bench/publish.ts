import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { MachineFacts } from './machine.ts';
import { updateMarkedSection } from './markers.ts';
import { SERVER_NAMES, type BenchOptions, type ServerName } from './options.ts';
import type { PostgresFacts } from './postgres.ts';
import { renderCompact, renderFull } from './report.ts';
import type { PhaseRecord } from './rounds.ts';
import type { MemoryRecord, Summary } from './summary.ts';

export interface BenchResult {
  startedAt: Date;
  finishedAt: Date;
  machine: MachineFacts;
  code: { commit: string; uncommittedChanges: boolean };
  postgres: PostgresFacts;
  options: BenchOptions;
  records: PhaseRecord[];
  memory: Partial<Record<ServerName, MemoryRecord>>;
  summary: Summary;
}

/**
 * Prints the report, writes the JSON under .data/bench/ (git-ignored), and rewrites the marked
 * results sections of docs/benchmark.md and README.md. A partial run (--only) or --no-docs
 * leaves the documents alone, so a quick experiment never replaces the published figures.
 */
export async function publish(input: {
  projectDir: string;
  benchDir: string;
  result: BenchResult;
  log: (line: string) => void;
}): Promise<void> {
  const { result, log, projectDir } = input;
  const full = renderFull(result);
  log(`\n${full}\n`);

  // The admin URL may carry a password: the file keeps only where the databases lived.
  const options = {
    ...result.options,
    adminDatabaseUrl: withoutPassword(result.options.adminDatabaseUrl),
  };
  const jsonPath = join(input.benchDir, 'latest.json');
  writeFileSync(jsonPath, `${JSON.stringify({ ...result, options }, null, 2)}\n`);
  log(`JSON: ${relative(projectDir, jsonPath)}`);

  const complete = SERVER_NAMES.every((name) => result.options.only.includes(name));
  if (!result.options.writeDocs || !complete) {
    log('documents not updated (' + (complete ? '--no-docs' : 'not all servers measured') + ')');
    return;
  }
  const written = [
    (await updateMarkedSection(join(projectDir, 'docs', 'benchmark.md'), full, projectDir)) &&
      'docs/benchmark.md',
    (await updateMarkedSection(join(projectDir, 'README.md'), renderCompact(result), projectDir)) &&
      'README.md',
  ].filter(Boolean);
  log(`updated between the bench markers: ${written.length > 0 ? written.join(', ') : 'none'}`);
}

export function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
