import { NotDone } from '../../src/lib/command-line/errors.ts';
import { Interrupted } from './tool-errors.ts';

/** Why a run is given up before its end: a signal, or its time limit passed. */
export type Abandonment = Interrupted['signal'] | 'time limit';

export interface Abandoning {
  /** Undoes what the run started; giving up waits for it. */
  cleanUp: () => Promise<void>;
  /** Says why the run is given up, before the cleanup starts (on the tool's own stream). */
  announce: (why: Abandonment) => void;
  /** Give the run up after this long (a NotDone: exit 1). */
  timeLimitMs?: number;
}

/**
 * What `run` comes to, unless it is given up first: on SIGINT or SIGTERM (an Interrupted: exit 130 or
 * 143) or when `timeLimitMs` passes (a NotDone). Giving up announces why, cleans up, then throws,
 * whatever `run` still has going: runTool's exit ends that, so no tool exits on a signal itself.
 * Once giving up has begun, a further SIGINT or SIGTERM ends the process at once, as Node does.
 */
export function abandonable<T>(run: () => Promise<T>, abandoning: Abandoning): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let abandoned = false;
    const onSigint = () => abandon('SIGINT', new Interrupted('SIGINT'));
    const onSigterm = () => abandon('SIGTERM', new Interrupted('SIGTERM'));
    process.once('SIGINT', onSigint);
    process.once('SIGTERM', onSigterm);
    const timer =
      abandoning.timeLimitMs === undefined
        ? undefined
        : setTimeout(() => abandon('time limit', new NotDone()), abandoning.timeLimitMs);
    const stopWatching = () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      clearTimeout(timer);
    };
    function abandon(why: Abandonment, error: Error): void {
      if (abandoned) return;
      abandoned = true;
      stopWatching();
      abandoning.announce(why);
      const giveUp = () => reject(error);
      abandoning.cleanUp().then(giveUp, giveUp); // the cleanup reports each failed step itself
    }
    // Started once the signals are listened for: a signal during its first, synchronous steps
    // (a build) is then handled after them, not the process ended without a cleanup.
    run().then(
      (value) => {
        if (abandoned) return;
        stopWatching();
        resolve(value);
      },
      (error: unknown) => {
        if (abandoned) return;
        stopWatching();
        reject(error);
      },
    );
  });
}
