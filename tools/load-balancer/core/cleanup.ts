/**
 * Everything the harness starts registers how to undo it here; `run` undoes it all in reverse
 * order, once, whether the run passed, failed, timed out or was interrupted. One failing step
 * never stops the others.
 */
export interface Cleanup {
  defer(what: string, undo: () => Promise<void> | void): void;
  run(): Promise<void>;
}

export function createCleanup(log: (line: string) => void): Cleanup {
  const steps: { what: string; undo: () => Promise<void> | void }[] = [];
  let running: Promise<void> | undefined;
  return {
    defer: (what, undo) => {
      steps.push({ what, undo });
    },
    run: () => {
      running ??= (async () => {
        for (const step of steps.reverse()) {
          try {
            await step.undo();
          } catch (error) {
            log(`cleanup: ${step.what} failed: ${error instanceof Error ? error.message : error}`);
          }
        }
      })();
      return running;
    },
  };
}
