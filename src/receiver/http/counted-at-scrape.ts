import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Metrics every delivery moves, at the cost of plain arithmetic: the numbers are kept here and
 * handed to prom-client when the registry is read (a scrape), through each metric's `collect`,
 * as the pool's gauges are (src/lib/http/metrics-registry.ts). A prom-client call per delivery
 * makes a label object, a hash string and a result object; a scrape every few seconds makes them
 * once per series. What a scrape shows is the same.
 */

interface MetricConfig {
  name: string;
  help: string;
  registry: Registry;
}

/** A level (bodies, bytes, deliveries in progress): `set` only keeps the number. */
export interface Level {
  set(value: number): void;
}

export function levelGauge(config: MetricConfig): Level {
  let value = 0;
  new Gauge({
    name: config.name,
    help: config.help,
    registers: [config.registry],
    collect() {
      this.set(value);
    },
  });
  return {
    set(next) {
      value = next;
    },
  };
}

interface Cell {
  readonly labels: Record<string, string>;
  pending: number;
}

/**
 * A counter by one or two labels. Label values must come from a fixed set (a URL never mints
 * one), as for any counter: each pair keeps a cell.
 */
export class TalliedCounter {
  private readonly cells = new Map<string, Map<string, Cell>>();

  constructor(
    config: MetricConfig,
    private readonly labelNames: readonly [string] | readonly [string, string],
  ) {
    const cells = this.cells;
    new Counter({
      name: config.name,
      help: config.help,
      labelNames,
      registers: [config.registry],
      collect() {
        for (const inner of cells.values()) {
          for (const cell of inner.values()) {
            if (cell.pending === 0) continue;
            this.inc(cell.labels, cell.pending);
            cell.pending = 0;
          }
        }
      },
    });
  }

  /** Adds `by` to the series of these label values (`second` for a counter of two labels). */
  add(by: number, first: string, second = ''): void {
    let inner = this.cells.get(first);
    if (inner === undefined) {
      inner = new Map();
      this.cells.set(first, inner);
    }
    let cell = inner.get(second);
    if (cell === undefined) {
      const [firstName, secondName] = this.labelNames;
      const labels: Record<string, string> = { [firstName]: first };
      if (secondName !== undefined) labels[secondName] = second;
      cell = { labels, pending: 0 };
      inner.set(second, cell);
    }
    cell.pending += by;
  }
}
