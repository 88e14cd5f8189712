/**
 * The one command line: `main.ts <command> [options]` (`node dist/src/cli/main.js` in the image).
 * Every npm script (start, migrate, provider, recover, feed, quarantine, prune) comes through
 * here; the commands are in src/cli/command-line.ts, each module loaded only when asked for
 * (`migrate` never loads Express). The one place the process exits with a command's code
 * (src/cli/exit-codes.ts: 0 done, 1 a failure at run time, 2 bad usage or configuration).
 */
import { runCommandLine } from './command-line.ts';
import { projectDir } from '../lib/project-dir.ts';

const code = await runCommandLine(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  projectDir: projectDir(),
});
// 'serving': the receiver exits by its own shutdown (SIGTERM, SIGINT), with its own code.
if (code !== 'serving') process.exit(code);
