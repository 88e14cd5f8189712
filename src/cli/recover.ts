/**
 * npm run recover -- [--date YYYY-MM-DD ...] [--skip-payto]     (npm run recover -- --help)
 *
 * Asks the platform to resend notifications the receiver missed, and lists PayTo receipts that
 * no webhook brought. See the README and docs/provider-client.md, "Recovery".
 */
import type { OperatorIo } from '../lib/command-options.ts';
import { runRecoverCli } from '../platform/index.ts';
import { loadOperatorConfig } from './config.ts';

export const run = (io: OperatorIo): Promise<number> => runRecoverCli(io, loadOperatorConfig);
