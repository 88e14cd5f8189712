import type { SandboxKeys } from '../core/keys.ts';
import { planSimulation, type PlanOptions } from './plan.ts';
import { runSimulation, type RunOptions } from './run-simulation.ts';
import type { SimulationSummary } from './summary.ts';

export type SimulateOptions = PlanOptions & RunOptions;

/**
 * A planned batch straight to a receiver (`npm run sandbox -- simulate`): every event and shape
 * variant, forgeries, malformed bodies and redeliveries, signed with the sandbox's key of the
 * moment, so a receiver that trusts the sandbox's key endpoint verifies them. Nothing goes
 * through the subscriptions or the delivery engine: the batch is the run's own, tallied against
 * what the receiver should answer.
 */
export function simulate(keys: SandboxKeys, options: SimulateOptions): Promise<SimulationSummary> {
  return runSimulation(planSimulation(options, keys.current().privateKey), options);
}
