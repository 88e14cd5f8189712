/**
 * The sandbox's clock: real time plus an offset that `POST /sandbox/clock` moves forward, so a
 * test can pass the refund wait or a token's expiry without waiting. Only ever forward: the
 * platform's own clock never goes back, and the report and the refund rule assume it.
 */
export interface SandboxClock {
  now(): Date;
  /** Moves the clock forward by `seconds` (≥ 0). */
  advance(seconds: number): void;
  /** How far ahead of real time the clock is, for saving with the state. */
  offsetMs(): number;
}

export function createSandboxClock(realNow: () => number = Date.now, offsetMs = 0): SandboxClock {
  let offset = offsetMs;
  return {
    now: () => new Date(realNow() + offset),
    advance(seconds) {
      if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('seconds must be ≥ 0');
      offset += Math.round(seconds * 1000);
    },
    offsetMs: () => offset,
  };
}
