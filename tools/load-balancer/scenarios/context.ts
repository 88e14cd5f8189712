import type { Cleanup } from '../core/cleanup.ts';
import type { Options } from '../core/options.ts';
import type { Stack } from '../core/stack.ts';
import { createWorkload, type PlannedDelivery } from '../core/workload.ts';

/** What every scenario gets from the runner. */
export interface ScenarioContext {
  stack: Stack;
  options: Options;
  /** Every response body goes here (the leak check reads them). */
  onBody: (body: string) => void;
  log: (line: string) => void;
  /** For what a scenario starts itself (processes, servers): undone in every case. */
  cleanup: Cleanup;
}

const TAGS = ['A', 'BTERM', 'BKILL', 'C'] as const;
export type ScenarioTag = (typeof TAGS)[number];

/**
 * Fresh deliveries for one scenario. Webhookids are (seconds now) * 10^9 + scenario * 10^7 +
 * sequence: never repeated within a run or across runs, and below 2^63.
 */
export function workloadFor(context: ScenarioContext, tag: ScenarioTag): () => PlannedDelivery {
  const seconds = BigInt(Math.floor(Date.now() / 1000));
  return createWorkload({
    tag,
    idBase: seconds * 1_000_000_000n + BigInt(TAGS.indexOf(tag)) * 10_000_000n,
    privateKey: context.stack.signer.privateKey,
    onSignature: (signature) => context.stack.leaks.addSignature(signature),
  });
}
