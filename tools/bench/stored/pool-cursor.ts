import type { DeliveryPool } from '../deliveries.ts';

/**
 * Hands out fresh deliveries for the large database. Its rows are kept between phases (emptying
 * it would undo the seeding), so a delivery it has stored must never be sent to it again: each
 * phase gets a view of the pool that starts after the last delivery an earlier view handed out.
 * The empty database is emptied between phases, so a pair's two phases can share one view and
 * send exactly the same deliveries.
 */

export interface PoolView extends DeliveryPool {
  /** Index in the whole pool of the view's first delivery. */
  readonly start: number;
  /** How many of the view's deliveries were handed out so far (highest index asked + 1). */
  readonly used: number;
}

export interface PoolCursor {
  /** A view from the first delivery no earlier view used. */
  view(): PoolView;
  /** Moves past everything `view` handed out. */
  consume(view: PoolView): void;
  /** Index in the whole pool of the next fresh delivery. */
  readonly next: number;
}

export function createPoolCursor(pool: DeliveryPool): PoolCursor {
  let next = 0;
  return {
    view: () => poolView(pool, next),
    consume(view) {
      next = Math.max(next, view.start + view.used);
    },
    get next() {
      return next;
    },
  };
}

/** The pool from `start` on: index 0 of the view is delivery `start` of the pool. */
export function poolView(pool: DeliveryPool, start: number): PoolView {
  let used = 0;
  return {
    start,
    get size() {
      return Math.max(0, pool.size - start);
    },
    get used() {
      return used;
    },
    at(index) {
      used = Math.max(used, index + 1);
      return pool.at(start + index);
    },
    ensure: (count) => pool.ensure(start + count),
  };
}
