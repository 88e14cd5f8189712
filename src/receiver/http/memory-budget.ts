import type { Level } from './counted-at-scrape.ts';

/**
 * One budget for the bytes of every body this instance holds at once (after inflation), so
 * many slow or compressed bodies together cannot take the process's memory, whatever each one's
 * own limit. A body that would pass the budget is refused (503) rather than waited for.
 */
export interface MemoryBudget {
  /** Counts `bytes` against the budget; false (and nothing counted) when they do not fit. */
  tryReserve(bytes: number): boolean;
  release(bytes: number): void;
}

export function createMemoryBudget(limitBytes: number, gauge: Level): MemoryBudget {
  let inUse = 0;
  return {
    tryReserve(bytes) {
      if (inUse + bytes > limitBytes) return false;
      inUse += bytes;
      gauge.set(inUse);
      return true;
    },
    release(bytes) {
      inUse -= bytes;
      gauge.set(inUse);
    },
  };
}
