import type { SandboxKeys } from '../core/keys.ts';
import type { SimulateCliOptions } from './options.ts';
import { simulate } from './simulate.ts';
import { formatSummary, type SimulationSummary } from './summary.ts';

/**
 * `simulate` once the sandbox is up: sends the batch, prints the summary on stdout (progress on
 * stderr), answers it (checkSimulation judges it).
 */
export async function runSimulateCommand(
  keys: SandboxKeys,
  options: SimulateCliOptions,
  print: (line: string) => void,
): Promise<SimulationSummary> {
  print(`sending to ${options.url}/webhooks/<event> (seed ${options.seed})`);
  const summary = await simulate(keys, {
    ...options,
    progress: {
      intervalMs: options.progressIntervalMs,
      write: (line) => process.stderr.write(`${line}\n`),
    },
    ...(options.verbose && {
      onAttempt: (send, status, retry) =>
        print(
          `${status ?? 'ERR'} ${send.notification.eventName} ${send.notification.variant} Webhookid ${send.notification.webhookId}${send.duplicate ? ' redelivery' : ''}${retry ? ' retry' : ''}`,
        ),
    }),
  });
  print(formatSummary(summary));
  return summary;
}
