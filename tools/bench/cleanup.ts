/**
 * Everything the run created (servers, databases, connections), undone in reverse order however
 * the run ends: normally, on an error, or on Ctrl-C.
 */

export interface Cleanup {
  /** `now` is a synchronous last resort for when the process is exiting and cannot wait. */
  add(label: string, action: () => Promise<void>, now?: () => void): void;
  run(): Promise<void>;
  runNow(): void;
}

interface Step {
  label: string;
  action: () => Promise<void>;
  now: (() => void) | undefined;
}

export function createCleanup(report: (message: string) => void): Cleanup {
  const steps: Step[] = [];
  return {
    add(label, action, now) {
      steps.push({ label, action, now });
    },
    async run() {
      for (let step = steps.pop(); step; step = steps.pop()) {
        try {
          await step.action();
        } catch (error) {
          report(`cleanup: ${step.label} failed: ${String(error)}`);
        }
      }
    },
    runNow() {
      for (const step of steps.reverse()) step.now?.();
      steps.length = 0;
    },
  };
}
