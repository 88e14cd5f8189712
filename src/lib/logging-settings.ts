import { z } from 'zod';
import { integer, MIB } from './config/kinds.ts';
import { defineSection } from './config/section.ts';
import { variable } from './config/variable.ts';

/** The service's log lines: their level, and what is held while stdout is not keeping up. */
export const loggingSettings = defineSection({
  variables: {
    logLevel: variable(
      'LOG_LEVEL',
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      { doc: 'pino level (`silent` to `trace`)', section: 'Logs' },
    ),
    logBufferBytes: variable('LOG_BUFFER_BYTES', integer(16 * 1024, 256 * MIB).default(4 * MIB), {
      doc: 'log bytes held while stdout is not keeping up; beyond it lines are dropped and counted',
    }),
  },
});
