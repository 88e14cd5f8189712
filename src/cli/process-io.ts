import { projectDir } from '../lib/project-dir.ts';

/** The process's arguments, environment and streams for a CLI; exits with what `main` answers. */
export function runWithProcessIo(
  main: (io: {
    argv: string[];
    env: NodeJS.ProcessEnv;
    out: (text: string) => void;
    err: (text: string) => void;
    projectDir: string;
  }) => Promise<number>,
): void {
  main({
    argv: process.argv.slice(2),
    env: process.env,
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    projectDir: projectDir(),
  }).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
