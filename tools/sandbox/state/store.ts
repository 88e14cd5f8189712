import { createIdSource, type IdSource } from '../core/ids.ts';
import { emptyState, type SandboxState } from './types.ts';

/** Caps on what the sandbox keeps, so a long demo or a runaway test cannot exhaust memory. */
export const LIMITS = {
  wallets: 10_000,
  payIds: 10_000,
  payments: 100_000,
  refunds: 100_000,
  subscriptions: 100,
  /** The delivery log; when full, the oldest finished notification is forgotten. */
  notifications: 10_000,
  attemptsPerNotification: 20,
} as const;

type Collection = 'wallets' | 'payIds' | 'payments' | 'refunds' | 'subscriptions';

export interface SandboxStore {
  readonly state: SandboxState;
  readonly ids: IdSource;
  /** Adds an item, or answers false when the collection is at its cap. */
  add<K extends Collection>(collection: K, item: SandboxState[K][number]): boolean;
  /** Tells the listeners (the state-file saver) that something changed. */
  changed(): void;
  onChange(listener: () => void): void;
}

export function createStore(state: SandboxState = emptyState(), realNow = Date.now): SandboxStore {
  const ids = createIdSource(realNow, state.lastId);
  const listeners: (() => void)[] = [];
  const store: SandboxStore = {
    state,
    ids,
    add(collection, item) {
      const items = state[collection] as unknown[];
      if (items.length >= LIMITS[collection]) return false;
      items.push(item);
      store.changed();
      return true;
    },
    changed() {
      state.lastId = ids.last();
      for (const listener of listeners) listener();
    },
    onChange: (listener) => void listeners.push(listener),
  };
  return store;
}
