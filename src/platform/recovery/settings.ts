import { integer } from '../../lib/config/kinds.ts';
import { defineSection, type OutputOf } from '../../lib/config/section.ts';
import { variable } from '../../lib/config/variable.ts';
import { providerClientSettings } from '../client/settings.ts';

/** Scheduled recovery: least time between runs; 0 turns it off. Off without credentials. */
export const recoveryScheduleSettings = defineSection({
  variables: {
    recoveryIntervalMs: variable('RECOVERY_INTERVAL_MS', integer(0, 86_400_000).default(300_000), {
      doc: 'scheduled recovery, least time between runs (the first one interval after start); `0`: off (always off without `PROVIDER_API_KEY`)',
    }),
  },
  uses: { client: providerClientSettings },
  read: ({ recoveryIntervalMs }, { uses }) => ({
    recoveryIntervalMs: uses.client.provider.apiKey ? recoveryIntervalMs : 0,
  }),
});

export type RecoveryScheduleConfig = OutputOf<typeof recoveryScheduleSettings>;
