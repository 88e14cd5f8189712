import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { replaceBetweenMarkers as replaceMarked, type Markers } from '../common/markers.ts';

export type { Markers };

export const START_MARKER = '<!-- bench:start -->';
export const END_MARKER = '<!-- bench:end -->';

const BENCH_MARKERS: Markers = { start: START_MARKER, end: END_MARKER };

/** The bench's sections: tools/common/markers.ts with the bench's markers by default. */
export function replaceBetweenMarkers(
  document: string,
  content: string,
  markers: Markers = BENCH_MARKERS,
): string | undefined {
  return replaceMarked(document, content, markers);
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
  markers: Markers = BENCH_MARKERS,
): Promise<boolean> {
  if (!existsSync(path)) return false;
  const before = readFileSync(path, 'utf8');
  const replaced = replaceBetweenMarkers(before, content, markers);
  if (replaced === undefined) return false;
  const after = await formatLikeTheProject(path, replaced, projectDir);
  if (after !== before) writeFileSync(path, after);
  return true;
}

async function formatLikeTheProject(path: string, text: string, projectDir: string) {
  const ignorePath = join(projectDir, '.prettierignore');
  const info = await prettier.getFileInfo(path, existsSync(ignorePath) ? { ignorePath } : {});
  if (info.ignored) return text;
  const config = await prettier.resolveConfig(path);
  return prettier.format(text, { ...config, filepath: path });
}
