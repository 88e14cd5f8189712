import { describe, expect, it } from 'vitest';
import type { Delivery, DeliveryPool } from '../core/deliveries.ts';
import { createPoolCursor } from '../stored/load-rounds.ts';

/** A pool whose deliveries name their own index, growing on demand like the real one. */
function countingPool(): DeliveryPool {
  const deliveries: Delivery[] = [];
  return {
    get size() {
      return deliveries.length;
    },
    at: (index) => {
      const delivery = deliveries[index];
      if (!delivery) throw new RangeError(String(index));
      return delivery;
    },
    ensure: (count) => {
      while (deliveries.length < count) {
        deliveries.push({ body: String(deliveries.length), headers: {} });
      }
      return Promise.resolve();
    },
  };
}

describe('createPoolCursor', () => {
  it('when two phases share a view, then they see the same deliveries, and the next view starts after both', async () => {
    const cursor = createPoolCursor(countingPool());
    const first = cursor.view();
    await first.ensure(10);
    expect([first.at(0).body, first.at(3).body]).toEqual(['0', '3']);
    expect(first.at(6).body).toBe('6');
    cursor.consume(first);
    expect(cursor.next).toBe(7);

    const second = cursor.view();
    await second.ensure(5);
    expect(second.size).toBe(5);
    expect(second.at(0).body).toBe('7');
    expect(second.at(4).body).toBe('11');
  });

  it('when a view hands nothing out, then consuming it moves nothing', () => {
    const cursor = createPoolCursor(countingPool());
    cursor.consume(cursor.view());
    expect(cursor.next).toBe(0);
  });
});
