import closeWithGrace from 'close-with-grace';
import type { Logger } from '../logger.ts';
import { closeServer, type HttpServer } from './server.ts';

export interface ShutdownPlan {
  servers: HttpServer[];
  /** Called first, at once: readiness starts failing. */
  beginShutdown: () => void;
  /** Called after every server has finished its in-flight requests. */
  release: () => Promise<void>;
  timeoutMs: number;
  /**
   * Keep accepting this long after readiness starts failing, so a balancer that does not retry
   * (it only notices at its next health check) stops sending before the listener closes.
   */
  drainDelayMs?: number;
  logger: Logger;
  /** Before the normal exit: let buffered log lines go out (bounded: it must settle soon). */
  flush?: () => Promise<void>;
  /** The normal way out (default: `flush`, however it ends, then exit the process). */
  exit?: (code: number) => void;
  /** The way out when the timeout passes: must not wait for anything. */
  forceExit?: (code: number) => void;
}

/**
 * Graceful shutdown: readiness fails at once, servers stop accepting and finish in-flight
 * requests, then resources are released and the process exits. A forced exit bounds it.
 */
export function shutDownGracefully(plan: ShutdownPlan, signal: string): Promise<void> {
  const exit =
    plan.exit ??
    ((code: number) => {
      const leave = () => process.exit(code);
      (plan.flush?.() ?? Promise.resolve()).then(leave, leave);
    });
  const forceExit = plan.forceExit ?? ((code: number) => process.exit(code));
  plan.beginShutdown();
  plan.logger.info({ signal }, 'shutting down: finishing in-flight deliveries');
  const force = setTimeout(() => {
    plan.logger.error({ timeoutMs: plan.timeoutMs }, 'shutdown took too long; exiting');
    forceExit(1);
  }, plan.timeoutMs).unref();

  const drained = new Promise((resolve) => setTimeout(resolve, plan.drainDelayMs ?? 0));
  const closeAll = () => Promise.all(plan.servers.map((server) => closeServer(server)));
  return drained
    .then(closeAll)
    .then(plan.release)
    .then(
      () => {
        plan.logger.info('stopped');
        exit(0);
      },
      (error: unknown) => {
        plan.logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    )
    .finally(() => {
      // Done within the bound: the exit is `exit`'s to make (bounded itself: it flushes logs
      // for at most a second), never a late forced one on top.
      clearTimeout(force);
    });
}

/** Every signal close-with-grace listens for, but SIGTERM and SIGINT. */
const NOT_OURS = [
  'SIGHUP',
  'SIGQUIT',
  'SIGILL',
  'SIGTRAP',
  'SIGABRT',
  'SIGBUS',
  'SIGFPE',
  'SIGSEGV',
  'SIGUSR2',
  'uncaughtException',
  'unhandledRejection',
  'beforeExit',
] as const;

/**
 * SIGTERM (the orchestrator) or SIGINT (Ctrl-C) starts the graceful shutdown once; a second one
 * while it runs exits at once with 1 (close-with-grace's rule: a person pressing Ctrl-C again
 * means it). Crashes are not turned into a drain: an uncaught error still ends the process as
 * Node ends it. close-with-grace exits as soon as its callback settles, so the callback never
 * settles: shutDownGracefully makes the exit itself, after the logs had their moment, and
 * bounds the drain with its own forced exit (`plan.timeoutMs`).
 */
export function stopOnSignals(plan: ShutdownPlan): void {
  closeWithGrace(
    {
      delay: false,
      logger: false,
      skip: [...NOT_OURS],
      onSecondSignal: (signal) =>
        plan.logger.warn({ signal }, 'second signal during shutdown: exiting now'),
    },
    ({ signal }) =>
      new Promise<never>(() => {
        shutDownGracefully(plan, signal ?? 'SIGTERM').catch((error: unknown) =>
          plan.logger.error({ err: error }, 'shutdown failed'),
        );
      }),
  );
}
