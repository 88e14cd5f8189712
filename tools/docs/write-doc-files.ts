import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { NotDone } from '../../src/lib/command-line/errors.ts';
import { toolIo } from '../common/run-tool.ts';
import { describeDifference, type DocFile } from './config-docs.ts';

/**
 * Writes (or with `check`, compares) generated documentation files; a stale one with `check` is
 * NotDone, named with the command that rewrites it and what it is generated from.
 */
export function writeDocFiles(
  projectDir: string,
  files: readonly DocFile[],
  options: { check: boolean; command: string; source: string },
): void {
  let stale = 0;
  for (const file of files) {
    if (file.current === file.expected) {
      toolIo.out(`${file.file}: up to date (${file.what})`);
    } else if (options.check) {
      stale += 1;
      toolIo.err(
        `${file.file} is stale: it differs from what ${options.source} declares (${describeDifference(file)}). Run \`${options.command}\` and commit the result.`,
      );
    } else {
      writeFileSync(path.join(projectDir, file.file), file.expected);
      toolIo.out(`${file.file}: written (${file.what})`);
    }
  }
  if (stale > 0) throw new NotDone();
}
