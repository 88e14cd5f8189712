import type { StoreProbe } from '../postgres.ts';

/**
 * The large database's store probe: the rows a phase stored are the rows counted now minus
 * those counted after the previous phase (the seeded deliveries stay), and it is never emptied.
 */
export interface GrowthProbe extends StoreProbe {
  /** Counts the rows now: the next phase's rows are counted from here. */
  rebase(table: string): Promise<void>;
}

export function createGrowthProbe(probe: StoreProbe): GrowthProbe {
  let baseline = 0;
  return {
    count: async (table) => (await probe.count(table)) - baseline,
    rebase: async (table) => {
      baseline = await probe.count(table);
    },
    truncateAll: () =>
      Promise.reject(new Error('the large database is never emptied: that would undo its seeding')),
    close: () => probe.close(),
  };
}
