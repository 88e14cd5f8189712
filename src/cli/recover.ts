/**
 * npm run recover -- [--date YYYY-MM-DD ...] [--skip-payto]     (npm run recover -- --help)
 *
 * Asks the platform to resend notifications the receiver missed, and lists PayTo receipts that
 * no webhook brought. See the README, "Recovery".
 */
import { projectDir } from '../project-dir.ts';
import { runRecoverCli } from '../recovery/recover-cli.ts';

runRecoverCli({
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
