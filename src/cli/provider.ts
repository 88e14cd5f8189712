/**
 * npm run provider -- <command> [options]     (npm run provider -- --help)
 *
 * Calls the platform's API with the configured credentials (PROVIDER_* variables): PayID
 * enquiry, wallets, refunds of stored payments, the PayTo report, subscriptions, the delivery
 * report and resends. See docs/provider-client.md.
 */
import { runCli } from '../provider/cli/run-cli.ts';
import { PROVIDER_COMMANDS } from '../provider/cli/commands.ts';
import { projectDir } from '../project-dir.ts';

runCli('provider', PROVIDER_COMMANDS, {
  argv: process.argv.slice(2),
  env: process.env,
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  projectDir: projectDir(),
}).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
