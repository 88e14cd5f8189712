import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as prettier from 'prettier';
import { replaceBetweenMarkers, type Markers } from '../../common/markers.ts';
import type { MachineFacts } from './machine.ts';
import type { BenchOptions } from './options.ts';
import type { Check } from './summary.ts';

/** What both reports are made of (markdown tables, number formats), and how they are published. */

export const int = (value: number) => Math.round(value).toLocaleString('en-US');
export const ms = (value: number) => value.toFixed(2);
export const times = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value) ? '-' : `${value.toFixed(2)}x`;

export function table(header: string[], rows: string[][], alignRightFrom = 1): string {
  const align = header.map((_, i) => (i >= alignRightFrom ? '---:' : '---'));
  return [header, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export const RESULT = { pass: 'PASS', fail: 'FAIL', 'n/a': 'n/a' } as const;

/** The report's last part: whether every target was met, and each check. */
export function targetsSection(checks: readonly Check[]): string {
  const passed = checks.every((check) => check.status !== 'fail');
  return [
    `**Targets**: ${passed ? 'all met' : 'not all met'}`,
    table(
      ['check', 'target', 'measured', 'result'],
      checks.map((c) => [c.label, c.target, c.actual, RESULT[c.status]]),
      4,
    ),
  ].join('\n\n');
}

/** The start of a report's first line: when, and which receiver. */
export function describeCode(
  finishedAt: Date,
  code: { commit: string; uncommittedChanges: boolean },
): string {
  const changes = code.uncommittedChanges ? ' plus uncommitted changes' : '';
  return `_${finishedAt.toISOString()}, receiver at ${code.commit}${changes}: `;
}

export function describeHardware(machine: MachineFacts): string {
  return (
    `${machine.cpus} x ${machine.cpuModel}, ${(machine.memoryBytes / 1e9).toFixed(1)} GB, ` +
    `Node ${machine.node}`
  );
}

/**
 * Prints the report, writes the result as JSON under .data/bench/ (git-ignored), and rewrites
 * the marked sections of the documents, unless `documents` says why not.
 */
export async function publish(input: {
  projectDir: string;
  jsonPath: string;
  result: { options: BenchOptions };
  report: string;
  documents: string | { file: string; markers: Markers; content: string }[];
  log: (line: string) => void;
}): Promise<void> {
  const { result, log, projectDir } = input;
  log(`\n${input.report}\n`);
  // The admin URL may carry a password: the file keeps only where the databases lived.
  const options = {
    ...result.options,
    adminDatabaseUrl: withoutPassword(result.options.adminDatabaseUrl),
  };
  writeFileSync(input.jsonPath, `${JSON.stringify({ ...result, options }, null, 2)}\n`);
  log(`JSON: ${relative(projectDir, input.jsonPath)}`);
  if (typeof input.documents === 'string') {
    log(`documents not updated (${input.documents})`);
    return;
  }
  const written: string[] = [];
  for (const { file, markers, content } of input.documents) {
    const path = join(projectDir, file);
    if (await updateMarkedSection(path, content, projectDir, markers)) written.push(file);
  }
  log(`updated between the markers: ${written.length > 0 ? written.join(', ') : 'none'}`);
}

function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/**
 * Rewrites the marked section of a file; a file without both markers is left untouched. The
 * result goes through the project's Prettier settings, so `npm run lint` stays clean after a run.
 * Returns whether the file has the markers.
 */
export async function updateMarkedSection(
  path: string,
  content: string,
  projectDir: string,
  markers: Markers,
): Promise<boolean> {
  if (!existsSync(path)) return false;
  const before = readFileSync(path, 'utf8');
  const replaced = replaceBetweenMarkers(before, content, markers);
  if (replaced === undefined) return false;
  const ignorePath = join(projectDir, '.prettierignore');
  const info = await prettier.getFileInfo(path, existsSync(ignorePath) ? { ignorePath } : {});
  const after = info.ignored
    ? replaced
    : await prettier.format(replaced, { ...(await prettier.resolveConfig(path)), filepath: path });
  if (after !== before) writeFileSync(path, after);
  return true;
}
