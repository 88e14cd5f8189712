/**
 * npm run recover -- [--date YYYY-MM-DD ...] [--skip-payto]     (npm run recover -- --help)
 *
 * Asks the platform to resend notifications the receiver missed, and lists PayTo receipts that
 * no webhook brought. See the README and docs/provider-client.md, "Recovery".
 */
import type { OperatorIo } from '../lib/command-line/command-description.ts';
import { recoverCommand } from '../platform/index.ts';
import { loadOperatorConfig } from './config.ts';

export const command = (io: OperatorIo) => recoverCommand(io, loadOperatorConfig);
