/**
 * Runs `task` once after `delayMs`; the returned function cancels it. Injected so tests can move
 * time by hand; the real one never keeps the process alive on its own account. What `task`
 * returns is dropped (a test clock awaits it): a task handles its own failures.
 */
export type Schedule = (task: () => unknown, delayMs: number) => () => void;

export const scheduleUnref: Schedule = (task, delayMs) => {
  const timer = setTimeout(() => void task(), delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};
