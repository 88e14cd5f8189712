import { describe, expect, it } from 'vitest';
import { replaceBetweenMarkers as replaceMarked } from '../markers.ts';

const START_MARKER = '<!-- bench:start -->';
const END_MARKER = '<!-- bench:end -->';
const MARKERS = { start: START_MARKER, end: END_MARKER };
const replaceBetweenMarkers = (document: string, content: string) =>
  replaceMarked(document, content, MARKERS);

describe('replaceBetweenMarkers', () => {
  it('when both markers are present, then only the text between them is replaced', () => {
    const document = `# Title\n\nintro\n${START_MARKER}\nold figures\n${END_MARKER}\n\nafter\n`;
    expect(replaceBetweenMarkers(document, 'new figures')).toBe(
      `# Title\n\nintro\n${START_MARKER}\nnew figures\n${END_MARKER}\n\nafter\n`,
    );
  });

  it('when the section is rewritten twice, then the result is the same as once', () => {
    const document = `a\n${START_MARKER}\n${END_MARKER}\nb`;
    const once = replaceBetweenMarkers(document, 'x') ?? '';
    expect(replaceBetweenMarkers(once, 'x')).toBe(once);
  });

  it('when the markers are mentioned inside a line of prose, then only the ones on their own lines count', () => {
    const prose = `Runs rewrite the text between \`${START_MARKER}\` and \`${END_MARKER}\` below.`;
    const document = `${prose}\n\n${START_MARKER}\nold\n${END_MARKER}\n`;
    expect(replaceBetweenMarkers(document, 'new')).toBe(
      `${prose}\n\n${START_MARKER}\nnew\n${END_MARKER}\n`,
    );
    expect(replaceBetweenMarkers(prose, 'new')).toBeUndefined();
  });

  it('when a marker is missing, then nothing is returned', () => {
    expect(replaceBetweenMarkers(`a\n${START_MARKER}\nb`, 'x')).toBeUndefined();
    expect(replaceBetweenMarkers(`a\n${END_MARKER}\nb`, 'x')).toBeUndefined();
  });

  it('when the end marker comes before the start marker, then nothing is returned', () => {
    expect(replaceBetweenMarkers(`${END_MARKER}\n${START_MARKER}`, 'x')).toBeUndefined();
  });
});
