import { optionalText } from '../lib/config/kinds.ts';
import { defineSection } from '../lib/config/section.ts';
import { variable } from '../lib/config/variable.ts';

/** The capture's settings (a door of their own: src/cli/config.ts composes them). */
export const captureSettings = defineSection({
  variables: {
    captureDir: variable('CAPTURE_DIR', optionalText, {
      doc: 'also write each authenticated delivery here as a fixture file (mode 0600, never the secret)',
      example: '.data/captured',
      section: 'Capture (docs/captured-fixtures.md)',
    }),
  },
});
