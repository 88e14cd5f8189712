/**
 * Proves the receiver behind a load balancer, with real processes: nginx in front of two
 * `src/cli/main.ts serve` instances sharing one Postgres (through a TCP proxy that can cut it off).
 *
 *   npm run test:lb                                   # every scenario
 *   npm run test:lb -- --scenario=A --deliveries=1000 # one scenario, smaller
 *   npm run test:lb -- --scenario=D                   # the whole chain: sandbox to consumer
 *   npm run test:lb -- --help
 *
 * Exit code: 0 every scenario held; 1 one did not (or the harness failed); 2 bad flags;
 * 3 skipped (nginx could not be installed). Everything started is stopped and removed at the
 * end, also on failure, timeout or Ctrl-C. See docs/load-balancer.md.
 */
import { createCleanup, type Cleanup } from './core/cleanup.ts';
import { ensureNginx, NginxUnavailable } from './core/nginx.ts';
import { parseOptions, usage, UsageError, type Options } from './core/options.ts';
import { check, passed, printResult, type ScenarioResult } from './core/report.ts';
import { wholeChain } from './scenarios/chain.ts';
import type { ScenarioContext } from './scenarios/context.ts';
import { databaseOutage } from './scenarios/database-outage.ts';
import { duplicatesAcrossInstances } from './scenarios/duplicates.ts';
import { restartUnderLoad } from './scenarios/restart.ts';
import { createBodyScan, secretsResult } from './scenarios/secrets.ts';
import { startStack, type Stack } from './core/stack.ts';

const log = (line: string) => console.log(line);

async function main(argv: string[]): Promise<number> {
  let options: Options | 'help';
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    log(`${error.message}\n\n${usage()}`);
    return 2;
  }
  if (options === 'help') {
    log(usage());
    return 0;
  }
  const opts = options;
  const started = performance.now();
  const cleanup = createCleanup(log);
  const abandon = (why: string, code: number) => {
    log(`\n${why}: cleaning up`);
    const exit = () => process.exit(code);
    cleanup.run().then(exit, exit); // run() reports each failed step itself
  };
  process.once('SIGINT', () => abandon('interrupted', 130));
  process.once('SIGTERM', () => abandon('terminated', 143));
  const watchdog = setTimeout(
    () => abandon(`run exceeded --max-seconds=${opts.maxSeconds}`, 1),
    opts.maxSeconds * 1000,
  );

  try {
    try {
      log(`using ${ensureNginx(log)}`);
    } catch (error) {
      if (!(error instanceof NginxUnavailable)) throw error;
      log(`SKIPPED: ${error.message}`);
      return 3;
    }
    const stack = await startStack({ logLevel: opts.logLevel, keep: opts.keep, cleanup, log });
    stack.describe().forEach((line) => log(line));
    const results = await runScenarios(stack, opts, cleanup);
    log('\n== Summary');
    for (const result of results) log(`   ${passed(result) ? 'PASS' : 'FAIL'}  ${result.title}`);
    log(`   total ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const ok = results.every(passed);
    if (!ok) printLogTails(stack);
    return ok ? 0 : 1;
  } catch (error) {
    log(`harness failed: ${error instanceof Error ? (error.stack ?? error.message) : error}`);
    return 1;
  } finally {
    clearTimeout(watchdog);
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`harness crashed: ${error instanceof Error ? error.stack : error}`);
    process.exit(1);
  },
);
