/**
 * Proves the receiver behind a load balancer, with real processes: nginx in front of two
 * `src/cli/main.ts serve` instances sharing one Postgres (through a TCP proxy that can cut it off).
 *
 *   npm run test:lb                                   # every scenario
 *   npm run test:lb -- --scenario=A --deliveries=1000 # one scenario, smaller
 *   npm run test:lb -- --scenario=D                   # the whole chain: sandbox to consumer
 *   npm run test:lb -- --help
 *
 * Exit code: 0 every scenario held; 1 one did not (or the harness failed, or ran out of
 * --max-seconds); 2 bad flags; 3 skipped (nginx could not be installed); 130 / 143 stopped by
 * SIGINT / SIGTERM (tools/common/run-tool.ts). Everything started is stopped and removed at the
 * end, also on failure, timeout or Ctrl-C. See docs/load-balancer.md.
 */
import { NotDone } from '../../src/lib/command-line/errors.ts';
import { abandonable, type Abandonment } from '../common/abandonable.ts';
import { runTool } from '../common/run-tool.ts';
import { createCleanup, type Cleanup } from './core/cleanup.ts';
import { ensureNginx } from './core/nginx.ts';
import { loadBalancerCommand, type Options } from './core/options.ts';
import { check, passed, printResult, type ScenarioResult } from './core/report.ts';
import { wholeChain } from './scenarios/chain.ts';
import type { ScenarioContext } from './scenarios/context.ts';
import { databaseOutage } from './scenarios/database-outage.ts';
import { duplicatesAcrossInstances } from './scenarios/duplicates.ts';
import { restartUnderLoad } from './scenarios/restart.ts';
import { createBodyScan, secretsResult } from './scenarios/secrets.ts';
import { startStack, type Stack } from './core/stack.ts';

const log = (line: string) => console.log(line);

/** Every scenario asked for; a scenario that did not hold is a NotDone. */
async function prove(options: Options): Promise<void> {
  const cleanup = createCleanup(log);
  const why: Record<Abandonment, string> = {
    SIGINT: 'interrupted',
    SIGTERM: 'terminated',
    'time limit': `run exceeded --max-seconds=${options.maxSeconds}`,
  };
  await abandonable(() => proveOnStack(options, cleanup), {
    cleanUp: () => cleanup.run(),
    announce: (abandonment) => log(`\n${why[abandonment]}: cleaning up`),
    timeLimitMs: options.maxSeconds * 1000,
  });
}

async function proveOnStack(options: Options, cleanup: Cleanup): Promise<void> {
  const started = performance.now();
  try {
    log(`using ${ensureNginx(log)}`); // NginxUnavailable: a Skipped, exit 3
    const { logLevel, keep } = options;
    const stack = await startStack({ logLevel, keep, cleanup, log });
    stack.describe().forEach((line) => log(line));
    const results = await runScenarios(stack, options, cleanup);
    log('\n== Summary');
    for (const result of results) log(`   ${passed(result) ? 'PASS' : 'FAIL'}  ${result.title}`);
    log(`   total ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (!results.every(passed)) {
      printLogTails(stack);
      throw new NotDone();
    }
  } finally {
    await cleanup.run();
  }
}

async function runScenarios(
  stack: Stack,
  options: Options,
  cleanup: Cleanup,
): Promise<ScenarioResult[]> {
  const bodies = createBodyScan(stack.leaks);
  const context: ScenarioContext = { stack, options, onBody: bodies.onBody, log, cleanup };
  const steps: Record<
    Options['scenarios'][number],
    { title: string; run: () => Promise<ScenarioResult> }[]
  > = {
    A: [{ title: 'A', run: () => duplicatesAcrossInstances(context) }],
    B: [
      { title: 'B (SIGTERM)', run: () => restartUnderLoad(context, 'SIGTERM') },
      { title: 'B (SIGKILL)', run: () => restartUnderLoad(context, 'SIGKILL') },
    ],
    C: [{ title: 'C', run: () => databaseOutage(context) }],
    // Last: it restarts the receivers configured for the chain (sandbox key, push relay).
    D: [{ title: 'D', run: () => wholeChain(context) }],
  };
  const plan = options.scenarios.flatMap((name) => steps[name]);

  const results: ScenarioResult[] = [];
  for (const step of plan) {
    log(`\n-- running ${step.title}...`);
    const started = performance.now();
    let result: ScenarioResult;
    try {
      result = await step.run();
    } catch (error) {
      result = {
        title: `${step.title}: did not complete`,
        seconds: (performance.now() - started) / 1000,
        figures: [],
        checks: [
          check(
            'scenario ran to the end',
            false,
            error instanceof Error ? error.message : String(error),
          ),
        ],
      };
    }
    printResult(result, log);
    results.push(result);
  }
  const secrets = secretsResult(stack, bodies);
  printResult(secrets, log);
  results.push(secrets);
  return results;
}

/** On failure, the last lines each process wrote, for a first look without --keep. */
function printLogTails(stack: Stack): void {
  for (const { source, text } of stack.logs()) {
    const lines = text.trimEnd().split('\n').slice(-8);
    log(`\n-- last lines of ${source}:`);
    lines.forEach((line) => log(`   ${line.slice(0, 400)}`));
  }
}

await runTool(loadBalancerCommand(prove), 'harness failed');
