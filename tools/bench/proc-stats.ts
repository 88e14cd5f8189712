// For tools/edge-attacks until it imports ./core/proc-stats.ts itself.
export { readMemory } from './core/proc-stats.ts';
