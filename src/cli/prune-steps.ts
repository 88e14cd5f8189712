import type { PruneStep } from '../lib/database/prune-step.ts';
import { feedAttemptsPruneStep, feedEventsPruneStep } from '../feed/index.ts';
import { recoveryPruneSteps } from '../platform/scheduled.ts';
import { deliveriesPruneStep, quarantinePruneStep } from '../receiver/index.ts';

/**
 * The prune's steps (docs/retention.md): each module declares those of its own tables, and
 * they are composed here, where the modules meet (src/operations runs them, and may reach
 * neither the feed nor the platform). In the order a run takes them: the small tables first,
 * the two large ones last.
 */
export const PRUNE_STEPS: readonly PruneStep[] = [
  quarantinePruneStep,
  ...recoveryPruneSteps,
  feedAttemptsPruneStep,
  feedEventsPruneStep,
  deliveriesPruneStep,
];
