import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaceBetweenMarkers as replaceMarked } from '../../common/markers.ts';
import { updateMarkedSection } from '../core/report.ts';

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

describe('updateMarkedSection', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-markers-'));

  it('when the file has the markers, then the new section is written formatted as Prettier would', async () => {
    const path = join(dir, 'with-markers.md');
    writeFileSync(path, `# Doc\n\n${START_MARKER}\n\nold\n\n${END_MARKER}\n`);
    expect(await updateMarkedSection(path, '| a | bb |\n|---|---|\n| 1 | 2 |', dir, MARKERS)).toBe(
      true,
    );
    expect(readFileSync(path, 'utf8')).toBe(
      `# Doc\n\n${START_MARKER}\n\n| a   | bb  |\n| --- | --- |\n| 1   | 2   |\n\n${END_MARKER}\n`,
    );
  });

  it('when the file has no markers, then it is left exactly as it was', async () => {
    const path = join(dir, 'without-markers.md');
    const text = '# Doc\n\n|a|b|\n|-|-|\n';
    writeFileSync(path, text);
    expect(await updateMarkedSection(path, 'new', dir, MARKERS)).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});
