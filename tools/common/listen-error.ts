import { UsageError } from '../../src/lib/command-line/errors.ts';

/**
 * A tool's listener that cannot have its port, as the words to fix it: `--port 4010 is in use:
 * choose another with --port (or SANDBOX_PORT)`, a UsageError (exit 2: the setting, not the run).
 * Any other error is answered as it is.
 */
export function listenProblem(
  error: unknown,
  port: number,
  option: string,
  variable?: string,
): unknown {
  const why = { EADDRINUSE: 'is in use', EACCES: 'is not permitted (below 1024?)' }[
    (error as NodeJS.ErrnoException | null)?.code ?? ''
  ];
  if (why === undefined) return error;
  const or = variable === undefined ? '' : ` (or ${variable})`;
  return new UsageError(`${option} ${port} ${why}: choose another with ${option}${or}`, '');
}
