import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';

export const START_MARKER = '<!-- bench:start -->';
export const END_MARKER = '<!-- bench:end -->';

/** A pair of markers around a section a run rewrites. */
export interface Markers {
  start: string;
  end: string;
}

const BENCH_MARKERS: Markers = { start: START_MARKER, end: END_MARKER };

/**
 * `document` with everything between the markers replaced by `content`; the markers and the text
 * around them are kept byte for byte. A marker counts only on a line of its own, so prose that
 * mentions the markers is never mistaken for them. Undefined when either is missing, or the end
 * comes first.
 */
export function replaceBetweenMarkers(
  document: string,
  content: string,
  markers: Markers = BENCH_MARKERS,
): string | undefined {
  const start = lineStart(document, markers.start, 0);
  if (start === undefined) return undefined;
  const end = lineStart(document, markers.end, start + markers.start.length);
  if (end === undefined) return undefined;
  const head = document.slice(0, start + markers.start.length);
  return `${head}\n${content.trim()}\n${document.slice(end)}`;
}

/** Index of the first line from `from` on that holds `marker` alone (blanks around allowed). */
function lineStart(document: string, marker: string, from: number): number | undefined {
  for (let at = document.indexOf(marker, from); at >= 0; at = document.indexOf(marker, at + 1)) {
    const lineBegin = document.lastIndexOf('\n', at - 1) + 1;
    const lineEnd = document.indexOf('\n', at);
    const before = document.slice(lineBegin, at);
    const after = document.slice(at + marker.length, lineEnd < 0 ? undefined : lineEnd);
    if (before.trim() === '' && after.trim() === '') return at;
  }
  return undefined;
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
