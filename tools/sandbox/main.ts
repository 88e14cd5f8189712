/**
 * npm run sandbox -- [options]            (see docs/sandbox.md, or --help)
 * npm run sandbox -- simulate [options]   (a planned batch to a receiver; docs/tools.md)
 * npm run sandbox -- trigger <event>       (one thing, delivered by a running sandbox)
 *
 * Wires the sandbox: options, the signing key, the state (and its file), the server; prints the
 * credentials and URLs. With --demo plays a day against a running receiver and exits with 0 when
 * the receiver answered every step as expected, 1 otherwise (2: no receiver there); with
 * `simulate` sends a planned batch of deliveries straight to a receiver and exits with 0 when
 * none that should have been accepted was lost and no forgery was accepted, 1 otherwise; 2 on
 * bad usage (tools/common/run-tool.ts).
 */
import { startBanner } from './banner.ts';
import { createSandboxClock } from './core/clock.ts';
import { SANDBOX_OPTIONS, sandboxOptions, USAGE, type CliOptions } from './cli-options.ts';
import { runDemo } from './demo/run-demo.ts';
import { createSandboxKeys } from './core/keys.ts';
import { createSandbox } from './sandbox.ts';
import { runSimulateCommand } from './simulate/command.ts';
import {
  SIMULATE_OPTIONS,
  SIMULATE_USAGE,
  simulateOptions,
  type SimulateCliOptions,
} from './simulate/options.ts';
import { checkSimulation } from './simulate/summary.ts';
import { createStateSaver, loadState } from './state/state-file.ts';
import { createStore } from './state/store.ts';
import { emptyState } from './state/types.ts';
import { TRIGGER_OPTIONS, TRIGGER_USAGE, triggerOptions } from './trigger/options.ts';
import { runTrigger } from './trigger/trigger.ts';
import { listenProblem } from '../common/listen-error.ts';
import { runTool, toolIo } from '../common/run-tool.ts';

const print = (line: string) => toolIo.out(line);

/** The sandbox serving, playing the demo, or sending a simulated batch; stopped at the end. */
async function runSandbox(options: CliOptions, batch?: SimulateCliOptions): Promise<void> {
  const state = options.stateFile ? await loadState(options.stateFile) : emptyState();
  const store = createStore(state);
  const keys = await createSandboxKeys({ keyFile: options.keyFile });
  const sandbox = createSandbox({
    credentials: { mAccount: options.mAccount, apiKey: options.apiKey },
    keys,
    store,
    clock: createSandboxClock(Date.now, state.clockOffsetMs),
    retryDelayMs: options.retryDelayMs,
    deliveryTimeoutMs: options.deliveryTimeoutMs,
    dialect: options.dialect,
    bare400: options.bare400,
    ...(!options.demo && {
      onAttempt: (record, attempt) =>
        print(
          `${attempt.responseCode ?? 'ERR'} ${record.eventName} Webhookid ${record.webhookId} → ${record.url} (${attempt.kind}${attempt.error ? `: ${attempt.error}` : ''})`,
        ),
    }),
  });
  const saver = options.stateFile
    ? createStateSaver(options.stateFile, () => store.state)
    : undefined;
  if (saver) store.onChange(() => saver.schedule());
  const server = await sandbox.listen(options.port, options.host).catch((error: unknown) => {
    sandbox.close();
    throw listenProblem(error, options.port, '--port', 'SANDBOX_PORT');
  });
  for (const line of startBanner(server.url, options, keys.fingerprint(), keys.origin)) print(line);

  const stop = async () => {
    sandbox.close();
    await server.close();
    await saver?.flush();
  };
  try {
    if (options.demo) await runDemo({ sandboxUrl: server.url, ...options, print });
    const summary = batch && (await runSimulateCommand(keys, batch, print));
    if ((!options.demo && !batch) || batch?.keepServing) {
      print('control routes under /sandbox/… (docs/sandbox.md); Ctrl-C to stop');
      await new Promise((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    }
    if (summary) checkSimulation(summary);
  } finally {
    await stop();
  }
}

await runTool(
  {
    name: 'sandbox',
    help: USAGE,
    options: SANDBOX_OPTIONS,
    run: ({ options }) => runSandbox(sandboxOptions(options, process.env)),
    commands: [
      {
        name: 'simulate',
        help: SIMULATE_USAGE,
        options: SIMULATE_OPTIONS,
        run: ({ options }) =>
          runSandbox(
            sandboxOptions(
              { port: options.port, host: options.host, keyFile: options.keyFile },
              process.env,
            ),
            simulateOptions(options),
          ),
      },
      {
        name: 'trigger',
        help: TRIGGER_USAGE,
        arguments: ['<event>'],
        options: TRIGGER_OPTIONS,
        run: ({ args: [event], options }) =>
          runTrigger(triggerOptions(event ?? '', options, process.env), print),
      },
    ],
  },
  'sandbox failed',
);
