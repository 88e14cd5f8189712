/** A pair of markers around a section of a document that a tool rewrites. */
export interface Markers {
  start: string;
  end: string;
}

/**
 * `document` with everything between the markers replaced by `content`; the markers and the text
 * around them are kept byte for byte. A marker counts only on a line of its own, so prose that
 * mentions the markers is never mistaken for them. Undefined when either is missing, or the end
 * comes first. `blankLines` puts an empty line on each side of the content.
 */
export function replaceBetweenMarkers(
  document: string,
  content: string,
  markers: Markers,
  options: { blankLines?: boolean } = {},
): string | undefined {
  const start = markerLineStart(document, markers.start, 0);
  if (start === undefined) return undefined;
  const end = markerLineStart(document, markers.end, start + markers.start.length);
  if (end === undefined) return undefined;
  const head = document.slice(0, start + markers.start.length);
  const gap = options.blankLines ? '\n\n' : '\n';
  // Leading blank lines go, a first line's indentation stays (a YAML block keeps its nesting).
  const body = content.replace(/^\s*\n/, '').trimEnd();
  return `${head}${gap}${body}${gap}${document.slice(end)}`;
}

/** Index of the first line from `from` on that holds `marker` alone (blanks around allowed). */
function markerLineStart(document: string, marker: string, from: number): number | undefined {
  for (let at = document.indexOf(marker, from); at >= 0; at = document.indexOf(marker, at + 1)) {
    const lineBegin = document.lastIndexOf('\n', at - 1) + 1;
    const lineEnd = document.indexOf('\n', at);
    const before = document.slice(lineBegin, at);
    const after = document.slice(at + marker.length, lineEnd < 0 ? undefined : lineEnd);
    if (before.trim() === '' && after.trim() === '') return at;
  }
  return undefined;
}
