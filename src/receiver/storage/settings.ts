import { integer } from '../../lib/config/kinds.ts';
import { defineSection } from '../../lib/config/section.ts';
import { variable } from '../../lib/config/variable.ts';

/** Group commit: statements writing deliveries at once, and the most deliveries in one. */
export const groupCommitSettings = defineSection({
  variables: {
    writeConcurrency: variable('WRITE_CONCURRENCY', integer(1, 1000).default(1), {
      doc: 'group commit: statements writing deliveries at once',
    }),
    writeBatchMax: variable('WRITE_BATCH_MAX', integer(1, 10_000).default(100), {
      doc: 'group commit: the most deliveries in one statement',
    }),
  },
});
